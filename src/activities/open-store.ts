import { LocalArtifactStore, type ArtifactStore } from './store';

/** Where the artifact store lives: a local folder (ARTIFACT_DIR). An S3-compatible bucket is another kind of location. */
export type ArtifactLocation = { kind: 'local'; dir: string };

/**
 * Opens the store at `location`. The worker and `rp intake` both open theirs here, from the same settings,
 * so they always agree on where artifacts and webhook secret records are.
 */
export async function openArtifactStore(location: ArtifactLocation): Promise<ArtifactStore> {
  return new LocalArtifactStore(location.dir);
}
