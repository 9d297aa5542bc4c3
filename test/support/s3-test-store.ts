import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CreateBucketCommand, DeleteObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { TestStoreInfo } from './seaweedfs';

/** A fresh bucket on the run's SeaweedFS, with a client for it and the environment a worker would get. */
export interface TestBucket {
  client: S3Client;
  bucket: string;
  /** AWS_* variables (and AWS_S3_FORCE_PATH_STYLE) pointing at the run's SeaweedFS. */
  env: Record<string, string>;
}

/** Waits (up to `timeoutMs`) for the S3 port to answer, then creates a bucket named after `label`. */
export async function openTestBucket(info: TestStoreInfo & { available: true }, label: string, timeoutMs = 60_000): Promise<TestBucket> {
  const env = {
    AWS_ENDPOINT_URL: info.endpoint,
    AWS_REGION: info.region,
    AWS_ACCESS_KEY_ID: info.accessKeyId,
    AWS_SECRET_ACCESS_KEY: info.secretAccessKey,
    AWS_S3_FORCE_PATH_STYLE: 'true',
  };
  const client = new S3Client({
    endpoint: info.endpoint,
    region: info.region,
    credentials: { accessKeyId: info.accessKeyId, secretAccessKey: info.secretAccessKey },
    forcePathStyle: true,
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.send(new ListBucketsCommand({}));
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        const output = info.logFile ? await readFile(info.logFile, 'utf8').catch(() => '') : '';
        const tail = output.trim().split('\n').slice(-15).join('\n');
        throw new Error(`SeaweedFS at ${info.endpoint} did not answer S3 within ${timeoutMs} ms${tail ? `; the end of its output:\n${tail}` : ''}`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const bucket = `${label}-${randomBytes(4).toString('hex')}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  // A new bucket's first write makes SeaweedFS grow a volume for it, and until that is done it may answer
  // writes with InternalError: write (and remove) one object first, so tests start on a bucket that takes writes.
  for (;;) {
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'warm-up', Body: 'ok' }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'warm-up' }));
      break;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`SeaweedFS bucket ${bucket} took no write within ${timeoutMs} ms`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return { client, bucket, env };
}
