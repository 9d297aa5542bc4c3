import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ArtifactNotFoundError, checkKey, type ArtifactData, type ArtifactStore } from './store';
import type { ArtifactRef } from '../domain/artifacts';

/** Where an S3 store writes: a bucket and a key prefix inside it (empty, or ending in `/`). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/** The metadata names (`x-amz-meta-…`) that carry what `stat` returns without reading the body. */
const SHA256_META = 'sha256';
const BYTES_META = 'bytes';

/** Bodies up to this size go in one PUT; larger ones stream as a multipart upload of parts this big. */
const PART_SIZE = 8 * 1024 * 1024;

/**
 * Artifacts as objects of an S3-compatible bucket (AWS S3, SeaweedFS, MinIO…), under a key prefix.
 * The client comes from the standard AWS environment (AWS_REGION, AWS_ENDPOINT_URL, the default
 * credential chain) unless one is given. A PUT replaces an object at once and a multipart upload
 * becomes visible only when it completes, so readers never see half a body. Size and SHA-256 travel
 * as object metadata so `stat` is one HEAD.
 */
export class S3ArtifactStore implements ArtifactStore {
  readonly bucket: string;
  readonly prefix: string;
  readonly client: S3Client;

  readonly #listPageSize: number | undefined;

  /** `listPageSize`: keys per listing page (the server's default, at most 1000, when unset). */
  constructor(location: S3Location, client?: S3Client, options: { listPageSize?: number } = {}) {
    this.bucket = location.bucket;
    this.prefix = location.prefix;
    this.client = client ?? new S3Client({});
    this.#listPageSize = options.listPageSize;
  }

  /** Writes `data` under `key`: one PUT for bytes and text, a multipart upload for streams. */
  async put(key: string, data: ArtifactData, contentType: string): Promise<ArtifactRef> {
    const objectKey = this.#objectKeyOf(key);
    if (typeof data === 'string' || data instanceof Uint8Array) {
      const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      const sha256 = createHash('sha256').update(body).digest('hex');
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          Body: body,
          ContentType: contentType,
          ContentLength: body.byteLength,
          Metadata: { [SHA256_META]: sha256, [BYTES_META]: String(body.byteLength) },
        }),
      );
      return this.#refOf(key, { bytes: body.byteLength, sha256, contentType });
    }
    // A stream's hash is known only at its end, after a PUT's metadata has gone: see #putStream.
    return this.#putStream(key, objectKey, data, contentType);
  }

  /** The whole body under `key`; rejects with `ArtifactNotFoundError` when there is none. */
  async get(key: string): Promise<Uint8Array> {
    const objectKey = this.#objectKeyOf(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      if (!result.Body) throw new ArtifactNotFoundError(key, this.#uriOf(objectKey));
      return await result.Body.transformToByteArray();
    } catch (error) {
      if (isNotFound(error)) throw new ArtifactNotFoundError(key, this.#uriOf(objectKey));
      throw error;
    }
  }

  /** The reference of `key` from one HEAD, or undefined when nothing is stored there. */
  async stat(key: string): Promise<ArtifactRef | undefined> {
    const objectKey = this.#objectKeyOf(key);
    let head;
    try {
      head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const bytes = head.ContentLength ?? 0;
    const contentType = head.ContentType ?? 'application/octet-stream';
    let sha256 = head.Metadata?.[SHA256_META];
    if (!sha256 || head.Metadata?.[BYTES_META] !== String(bytes)) {
      sha256 =
        (await this.#hashSidecar(objectKey, head.ETag)) ??
        createHash('sha256')
          .update(await this.get(key))
          .digest('hex');
    }
    return this.#refOf(key, { bytes, sha256, contentType });
  }

  /** Every artifact under `prefix`, paging through the listing, sorted by key. */
  async list(prefix: string): Promise<ArtifactRef[]> {
    const keys = await this.keys(prefix);
    const refs: ArtifactRef[] = [];
    // A few HEADs at a time: a run's folder may hold thousands of records.
    for (let start = 0; start < keys.length; start += 16) {
      const batch = await Promise.all(keys.slice(start, start + 16).map((key) => this.stat(key)));
      for (const ref of batch) if (ref) refs.push(ref);
    }
    return refs;
  }

  /** The keys under `prefix` from the listing alone (no HEAD per object), sorted. */
  async keys(prefix: string): Promise<string[]> {
    const trimmed = prefix.replace(/\/+$/, '');
    const listPrefix = trimmed ? `${this.prefix}${checkKey(trimmed).join('/')}/` : this.prefix;
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: listPrefix, ContinuationToken: token, MaxKeys: this.#listPageSize }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        const key = object.Key.slice(this.prefix.length);
        if (key.split('/').some((segment) => segment.startsWith('.'))) continue;
        keys.push(key);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  /**
   * Checks that the bucket answers and takes writes: HEAD the bucket, then put and delete a small
   * object under the prefix. Rejects with the cause (no such bucket, access denied, unreachable).
   */
  async checkReachable(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    const probe = `${this.prefix}.probe/${process.pid}-${Date.now()}`;
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: probe, Body: 'ok', ContentType: 'text/plain' }));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: probe }));
  }

  /** The `s3://bucket/prefix` this store writes under. */
  get url(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  async #putStream(key: string, objectKey: string, data: AsyncIterable<Uint8Array>, contentType: string): Promise<ArtifactRef> {
    // Read up to one part: a stream that ends within it is sent as bytes, with its hash in the metadata.
    const iterator = data[Symbol.asyncIterator]();
    const head: Uint8Array[] = [];
    let headBytes = 0;
    let ended = false;
    while (headBytes < PART_SIZE) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headBytes += next.value.byteLength;
    }
    if (ended) return this.put(key, Buffer.concat(head), contentType);

    // A large body: multipart, hashed as it streams. S3 fixes metadata when the upload starts, so the
    // hash goes in a sidecar object written after the upload completes, with the ETag S3 gave the
    // upload; `stat` trusts the sidecar only while the object still has that ETag (and, after a crash
    // between the two writes, re-reads the body instead).
    const hash = createHash('sha256');
    let bytes = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for (const chunk of head) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        yield chunk;
      }
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        hash.update(next.value);
        bytes += next.value.byteLength;
        yield next.value;
      }
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: Readable.from(counted()), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
    });
    let done;
    try {
      done = await upload.done();
    } catch (error) {
      // The upload was aborted (no part is left behind); let the source stream release what it holds.
      await iterator.return?.().catch(() => undefined);
      throw error;
    }
    const sha256 = hash.digest('hex');
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.#sidecarKeyOf(objectKey),
        Body: JSON.stringify({ sha256, etag: done.ETag }),
        ContentType: 'application/json',
      }),
    );
    return this.#refOf(key, { bytes, sha256, contentType });
  }

  async #hashSidecar(objectKey: string, etag: string | undefined): Promise<string | undefined> {
    if (!etag) return undefined;
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.#sidecarKeyOf(objectKey) }));
      const parsed = JSON.parse((await result.Body?.transformToString()) ?? '') as { sha256?: unknown; etag?: unknown };
      return typeof parsed.sha256 === 'string' && parsed.etag === etag ? parsed.sha256 : undefined;
    } catch {
      return undefined;
    }
  }

  #objectKeyOf(key: string): string {
    return this.prefix + checkKey(key).join('/');
  }

  /** Sidecars live under `<prefix>.meta/`, a segment no artifact key may use. */
  #sidecarKeyOf(objectKey: string): string {
    return `${this.prefix}.meta/${objectKey.slice(this.prefix.length)}.json`;
  }

  #uriOf(objectKey: string): string {
    return `s3://${this.bucket}/${objectKey}`;
  }

  #refOf(key: string, info: { bytes: number; sha256: string; contentType: string }): ArtifactRef {
    return { key, uri: this.#uriOf(this.#objectKeyOf(key)), ...info };
  }
}

function isNotFound(error: unknown): boolean {
  if (error instanceof NoSuchKey || error instanceof NotFound) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === 404;
}

/** One line on why an S3 call failed: a missing bucket, refused credentials, an unreachable endpoint. */
export function describeS3Error(error: unknown, bucket: string): string {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  if (status === 404 || name === 'NoSuchBucket') return `bucket ${JSON.stringify(bucket)} does not exist (HTTP 404)`;
  if (status === 403) return `access denied to bucket ${JSON.stringify(bucket)} (HTTP 403 ${name}): check the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE…)`;
  if (status === 301) return `bucket ${JSON.stringify(bucket)} is in another region (HTTP 301): set AWS_REGION`;
  const code = (error as { code?: unknown } | null)?.code;
  return `${name}${typeof code === 'string' && !message.includes(code) ? ` ${code}` : ''}: ${message || '(no message)'}`;
}
