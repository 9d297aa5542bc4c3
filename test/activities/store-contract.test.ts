import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  ArtifactKeyError,
  ArtifactNotFoundError,
  ArtifactStoreUnreachableError,
  LocalArtifactStore,
  openArtifactStore,
  type ArtifactStore,
} from '../../src/activities';
import { S3ArtifactStore } from '../../src/activities/s3-store';
import { testStore } from '../support/seaweedfs';
import { openTestBucket, type TestBucket } from '../support/s3-test-store';

// One contract, two stores: every behaviour the activities rely on, run against the local folder store
// and against the S3 store on the run's SeaweedFS (started by the Jest global setup).
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

interface Subject {
  store: ArtifactStore;
  /** The `uri` a key gets: a file:// URL, or `s3://bucket/key` with the key as is (as the AWS CLI writes it). */
  uriOf(key: string): string;
  close(): Promise<void>;
}

const info = testStore();
let bucket: TestBucket | undefined;

const subjects: Array<[string, () => Promise<Subject>]> = [
  [
    'LocalArtifactStore',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'rp-contract-'));
      return {
        store: new LocalArtifactStore(dir),
        uriOf: (key) => pathToFileURL(path.join(dir, ...key.split('/'))).href,
        close: () => rm(dir, { recursive: true, force: true }),
      };
    },
  ],
];
if (info.available) {
  subjects.push([
    'S3ArtifactStore on SeaweedFS',
    async () => {
      bucket ??= await openTestBucket(info, 'contract');
      const prefix = `runs-${randomBytes(3).toString('hex')}/`;
      // A small listing page, so `list` has to follow continuation tokens.
      const store = new S3ArtifactStore({ bucket: bucket.bucket, prefix }, bucket.client, { listPageSize: 3 });
      return { store, uriOf: (key) => `s3://${bucket!.bucket}/${prefix}${key}`, close: async () => undefined };
    },
  ]);
} else if (process.env.CI) {
  throw new Error(`CI needs SeaweedFS for the S3 store's contract: ${info.reason}`);
} else {
  process.stderr.write(`S3ArtifactStore contract skipped: ${info.reason}\n`);
}

afterAll(() => bucket?.client.destroy());

describe.each(subjects)('%s', (_name, make) => {
  let subject: Subject;
  beforeAll(async () => {
    subject = await make();
  }, 90_000);
  afterAll(async () => subject?.close());

  test('put returns the reference (key, uri, size, hash, type); get and stat give back the same', async () => {
    const body = '# Ünïcode report\n';
    const ref = await subject.store.put('research/w-1/report.md', body, 'text/markdown; charset=utf-8');
    expect(ref).toEqual({
      key: 'research/w-1/report.md',
      uri: subject.uriOf('research/w-1/report.md'),
      bytes: Buffer.byteLength(body),
      sha256: sha256(body),
      contentType: 'text/markdown; charset=utf-8',
    });
    expect(text(await subject.store.get('research/w-1/report.md'))).toBe(body);
    expect(await subject.store.stat('research/w-1/report.md')).toEqual(ref);
  });

  test('keeps each content type the outputs use', async () => {
    const types = { 'o/items.jsonl': 'application/x-ndjson', 'o/items.csv': 'text/csv', 'o/record.json': 'application/json', 'o/file.pdf': 'application/pdf' };
    for (const [key, type] of Object.entries(types)) await subject.store.put(key, new Uint8Array([1, 2, 3]), type);
    for (const [key, type] of Object.entries(types)) expect((await subject.store.stat(key))?.contentType).toBe(type);
  });

  test('streams a 20 MB body in chunks, hashing it on the way', async () => {
    const chunk = 256 * 1024;
    const whole = randomBytes(20 * 1024 * 1024);
    async function* chunks() {
      for (let offset = 0; offset < whole.byteLength; offset += chunk) yield whole.subarray(offset, offset + chunk);
    }
    const ref = await subject.store.put('big/body.bin', chunks(), 'application/octet-stream');
    expect(ref).toMatchObject({ bytes: whole.byteLength, sha256: sha256(whole), contentType: 'application/octet-stream' });
    expect(sha256(await subject.store.get('big/body.bin'))).toBe(sha256(whole));
    expect(await subject.store.stat('big/body.bin')).toEqual(ref);
  }, 60_000);

  test('a small stream is stored whole too', async () => {
    async function* chunks() {
      yield Buffer.from('a,b\n');
      yield Buffer.from('1,2\n');
    }
    const ref = await subject.store.put('small/stream.csv', chunks(), 'text/csv');
    expect(ref).toMatchObject({ bytes: 8, sha256: sha256('a,b\n1,2\n') });
    expect(text(await subject.store.get('small/stream.csv'))).toBe('a,b\n1,2\n');
  });

  test.each([
    ['within the first part', 1],
    ['after several parts (a multipart upload on S3)', 12],
  ])('a stream that fails %s stores nothing', async (_when, megabytes) => {
    async function* failing() {
      for (let index = 0; index < megabytes; index++) yield new Uint8Array(1024 * 1024).fill(index);
      throw new Error('the download broke');
    }
    await expect(subject.store.put(`broken/${megabytes}.bin`, failing(), 'application/octet-stream')).rejects.toThrow('the download broke');
    expect(await subject.store.stat(`broken/${megabytes}.bin`)).toBeUndefined();
    expect(await subject.store.list('broken')).toEqual([]);
  });

  test('a missing key: get rejects naming the key, stat is undefined', async () => {
    const failure = subject.store.get('research/nothing/here.md');
    await expect(failure).rejects.toThrow(ArtifactNotFoundError);
    await expect(subject.store.get('research/nothing/here.md')).rejects.toThrow('no artifact under key "research/nothing/here.md"');
    expect(await subject.store.stat('research/nothing/here.md')).toBeUndefined();
  });

  test('keys with spaces, plus, percent, unicode and URL characters round-trip and list', async () => {
    const keys = ['odd/a b+c.txt', 'odd/100%/ünïcødé 名.md', 'odd/q?x=1&y#z.json', "odd/quote'(1).csv"];
    for (const key of keys) await subject.store.put(key, key, 'text/plain');
    for (const key of keys) expect(text(await subject.store.get(key))).toBe(key);
    expect((await subject.store.list('odd')).map((ref) => ref.key)).toEqual([...keys].sort());
    expect(await subject.store.keys('odd')).toEqual([...keys].sort());
    expect((await subject.store.stat(keys[1]!))?.uri).toBe(subject.uriOf(keys[1]!));
  });

  test('refuses keys that leave the store or name hidden segments', async () => {
    for (const key of ['../escape.txt', '/abs.txt', 'a//b', '.meta/x.json', 'a/./b']) {
      await expect(subject.store.put(key, 'x', 'text/plain')).rejects.toThrow(ArtifactKeyError);
    }
  });

  test('list pages through every key under a folder-like prefix, sorted, and nothing beside it', async () => {
    const inside = Array.from({ length: 8 }, (_, index) => `list/run-1/items/item-${String(index).padStart(2, '0')}.json`);
    for (const key of [...inside].reverse()) await subject.store.put(key, '{}', 'application/json');
    await subject.store.put('list/run-10/items/other.json', '{}', 'application/json');
    await subject.store.put('list/run-1.json', '{}', 'application/json');
    const listed = await subject.store.list('list/run-1');
    expect(listed.map((ref) => ref.key)).toEqual(inside);
    expect(listed[0]).toMatchObject({ bytes: 2, sha256: sha256('{}'), contentType: 'application/json' });
    expect(await subject.store.list('list/run-1/')).toHaveLength(inside.length);
    expect(await subject.store.list('list/none')).toEqual([]);
    // keys: the same keys and order, from the listing alone; nothing under a prefix that holds nothing.
    expect(await subject.store.keys('list/run-1')).toEqual(inside);
    expect(await subject.store.keys('list/run-1/')).toEqual(inside);
    expect(await subject.store.keys('list/none')).toEqual([]);
    // A folder-like prefix is not an artifact.
    expect(await subject.store.stat('list/run-1')).toBeUndefined();
    await expect(subject.store.get('list/run-1')).rejects.toThrow(ArtifactNotFoundError);
  });

  test('a put replaces the content; concurrent puts of one key leave one whole value', async () => {
    await subject.store.put('replace/record.json', 'first', 'application/json');
    await subject.store.put('replace/record.json', 'second', 'application/json');
    expect(text(await subject.store.get('replace/record.json'))).toBe('second');

    const bodies = Array.from({ length: 6 }, (_, index) => Buffer.alloc(512 * 1024, index + 1));
    await Promise.all(bodies.map((body) => subject.store.put('replace/race.bin', body, 'application/octet-stream')));
    const stored = Buffer.from(await subject.store.get('replace/race.bin'));
    expect(bodies.some((body) => body.equals(stored))).toBe(true);
    expect(await subject.store.stat('replace/race.bin')).toMatchObject({ bytes: stored.byteLength, sha256: sha256(stored) });
  });
});

(info.available ? describe : describe.skip)(`S3 store settings and start-up check${info.available ? '' : ` [skipped: ${info.reason}]`}`, () => {
  let test_: TestBucket;
  beforeAll(async () => {
    if (!info.available) return;
    bucket ??= await openTestBucket(info, 'contract');
    test_ = bucket;
  }, 90_000);

  const withEnv = async <T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> => {
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    Object.assign(process.env, env);
    try {
      return await run();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  };

  test('openArtifactStore reads the AWS environment, checks the bucket, and leaves no probe behind', async () => {
    const store = await withEnv(test_.env, () =>
      openArtifactStore({ kind: 's3', url: `s3://${test_.bucket}/opened`, bucket: test_.bucket, prefix: 'opened/', forcePathStyle: true }),
    );
    expect((await store.put('a.txt', 'a', 'text/plain')).uri).toBe(`s3://${test_.bucket}/opened/a.txt`);
    const listed = await test_.client.send(new ListObjectsV2Command({ Bucket: test_.bucket, Prefix: 'opened/' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['opened/a.txt']);
    (store as S3ArtifactStore).client.destroy();
    await test_.client.send(new DeleteObjectCommand({ Bucket: test_.bucket, Key: 'opened/a.txt' }));
  });

  test('a missing bucket, wrong credentials or an unreachable endpoint fail at once, naming ARTIFACT_URL and the cause', async () => {
    const open = (bucketName: string, env: Record<string, string>) =>
      withEnv({ ...test_.env, ...env }, () =>
        openArtifactStore({ kind: 's3', url: `s3://${bucketName}/p`, bucket: bucketName, prefix: 'p/', forcePathStyle: true }),
      );
    await expect(open('no-such-bucket-here', {})).rejects.toThrow(
      new ArtifactStoreUnreachableError('s3://no-such-bucket-here/p', 'bucket "no-such-bucket-here" does not exist (HTTP 404)'),
    );
    await expect(open(test_.bucket, { AWS_SECRET_ACCESS_KEY: 'wrong-secret' })).rejects.toThrow(
      new RegExp(`^ARTIFACT_URL=s3://${test_.bucket}/p: the artifact store cannot be used: access denied`),
    );
    await expect(open(test_.bucket, { AWS_ENDPOINT_URL: 'http://127.0.0.1:1', AWS_MAX_ATTEMPTS: '1' })).rejects.toThrow(
      new RegExp(`^ARTIFACT_URL=s3://${test_.bucket}/p: the artifact store cannot be used: .*ECONNREFUSED`),
    );
  });

  test('a stream larger than one part goes up as a multipart upload whose hash stat finds again', async () => {
    const store = new S3ArtifactStore({ bucket: test_.bucket, prefix: 'multi/' }, test_.client);
    const whole = randomBytes(17 * 1024 * 1024);
    async function* chunks() {
      for (let offset = 0; offset < whole.byteLength; offset += 1024 * 1024) yield whole.subarray(offset, offset + 1024 * 1024);
    }
    const ref = await store.put('m.bin', chunks(), 'application/octet-stream');
    const head = await test_.client.send(new ListObjectsV2Command({ Bucket: test_.bucket, Prefix: 'multi/m.bin' }));
    // A multipart ETag ends in -<number of parts>.
    expect(head.Contents?.[0]?.ETag).toMatch(/-3"?$/);
    expect(await store.stat('m.bin')).toEqual(ref);
    expect(ref.sha256).toBe(sha256(whole));
  }, 60_000);
});
