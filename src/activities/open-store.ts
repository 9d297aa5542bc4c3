import { LocalArtifactStore, type ArtifactStore } from './store';

/** Where the artifact store lives: a local folder, or a bucket and key prefix of an S3-compatible server. */
export type ArtifactLocation =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      /** The setting as given (`s3://bucket/prefix`), for messages. */
      url: string;
      bucket: string;
      /** Key prefix inside the bucket: empty, or ending in `/`. */
      prefix: string;
      /** Address the bucket in the path (`http://host/bucket/key`), as most self-hosted servers need. */
      forcePathStyle?: boolean;
    };

/** The S3 store cannot be reached or refuses writes; the message names ARTIFACT_URL and the cause. */
export class ArtifactStoreUnreachableError extends Error {
  constructor(url: string, cause: string) {
    super(`ARTIFACT_URL=${url}: the artifact store cannot be used: ${cause}`);
    this.name = 'ArtifactStoreUnreachableError';
  }
}

/**
 * Opens the store at `location`. The S3 store (and the AWS SDK) is loaded only here, on demand, and
 * checked at once (`check`, on by default): a bucket that is missing, unreachable or read-only fails now
 * with an `ArtifactStoreUnreachableError`, not at the first activity.
 */
export async function openArtifactStore(location: ArtifactLocation, options: { check?: boolean } = {}): Promise<ArtifactStore> {
  if (location.kind === 'local') return new LocalArtifactStore(location.dir);
  const { S3ArtifactStore, describeS3Error } = await import('./s3-store');
  const { S3Client } = await import('@aws-sdk/client-s3');
  let store;
  try {
    store = new S3ArtifactStore(location, new S3Client(location.forcePathStyle ? { forcePathStyle: true } : {}));
    if (options.check !== false) await store.checkReachable();
  } catch (error) {
    store?.client.destroy();
    throw new ArtifactStoreUnreachableError(location.url, describeS3Error(error, location.bucket));
  }
  return store;
}
