import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { openArtifactStore, type ArtifactStore } from '../../src/activities';
import { startRunCommand, statusCommand } from '../../src/commands/runs';
import type { TemporalOpener } from '../../src/commands/common';
import { captureIo } from '../support/capture-io';
import { describeScenarios } from '../support/scenario-env';
import { testStore } from '../support/seaweedfs';
import { openTestBucket, type TestBucket } from '../support/s3-test-store';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

// A pipeline run on the real dev server whose worker keeps its artifacts in SeaweedFS through the S3
// store: the outputs land in the bucket, and `rp run --wait` and `rp status` print their s3:// places.
const info = testStore();
const title = 'a pipeline run with its artifacts in an S3 bucket';
if (!info.available && process.env.CI) throw new Error(`CI needs SeaweedFS for the S3 store scenario: ${info.reason}`);
if (!info.available) describe.skip(`${title} [skipped: ${info.reason}]`, () => it('needs SeaweedFS', () => undefined));
else
  describeScenarios(title, researchSetup, (getEnv) => {
    let world: ResearchWorld | undefined;
    let bucket: TestBucket | undefined;
    let store: ArtifactStore | undefined;
    afterEach(async () => {
      await world?.close();
      (store as { client?: { destroy(): void } } | undefined)?.client?.destroy();
      bucket?.client.destroy();
    });

    it('writes records and outputs to the bucket and prints their s3:// locations', async () => {
      if (!info.available) return;
      const env = getEnv();
      bucket = await openTestBucket(info, 'scenario');
      // As `rp worker` opens it from ARTIFACT_URL=s3://<bucket>/deploy with the AWS environment.
      const saved = { ...process.env };
      Object.assign(process.env, bucket.env);
      try {
        store = await openArtifactStore({ kind: 's3', url: `s3://${bucket.bucket}/deploy`, bucket: bucket.bucket, prefix: 'deploy/', forcePathStyle: true });
      } finally {
        for (const name of Object.keys(bucket.env)) {
          if (saved[name] === undefined) delete process.env[name];
          else process.env[name] = saved[name];
        }
      }
      world = await makeWorld(env, { store, emulator: { defaultCreditsUsd: 100 } });
      const dir = await mkdtemp(path.join(tmpdir(), 'rp-s3-run-'));
      const file = path.join(dir, 'topics.yaml');
      await writeFile(
        file,
        `
name: topics
input:
  items:
    - { topic: solid state batteries }
    - { topic: perovskite solar cells }
    - { topic: green hydrogen electrolysers }
  key: "{{ item.topic | slug }}"
step:
  search:
    query: "{{ item.topic }}"
    search_type: web
    max_num_results: 2
    max_price: 1
    response_length: 200
concurrency: 3
budget_usd: 1
outputs:
  - format: jsonl
  - format: csv
    columns:
      topic: "{{ item.topic }}"
  - format: markdown
`,
      );
      const opener: TemporalOpener = async () => ({ client: env.client, taskQueue: env.taskQueue, close: async () => undefined });
      const run = captureIo();
      const progress = { write: () => true };
      expect(await startRunCommand(file, { runKey: 's3', wait: true }, run.io, opener, { stream: progress, intervalMs: 100 })).toBe(0);

      const prefix = `s3://${bucket.bucket}/deploy/`;
      const printed = run.out().trim().split('\n');
      expect(printed[0]).toMatch(/^run topics\/s3 completed: 3 completed, 0 failed/);
      const folder = printed[1]!.replace(/^outputs: /, '');
      expect(folder.startsWith(prefix) && folder.endsWith('/outputs')).toBe(true);
      const files = printed.slice(2).map((line) => line.trim());
      expect(files.map((uri) => path.posix.basename(uri))).toEqual(['results.jsonl', 'results.csv', 'results.md']);
      expect(files.every((uri) => uri.startsWith(`${folder}/`))).toBe(true);

      const status = captureIo();
      expect(await statusCommand('topics/s3', {}, status.io, opener)).toBe(0);
      expect(status.out()).toContain(`  outputs: ${folder}\n`);

      // Read back from the bucket itself, not through the store.
      const read = async (uri: string) => {
        const object = await bucket!.client.send(new GetObjectCommand({ Bucket: bucket!.bucket, Key: uri.slice(`s3://${bucket!.bucket}/`.length) }));
        return { type: object.ContentType, body: await object.Body!.transformToString() };
      };
      const jsonl = await read(files[0]!);
      expect(jsonl.type).toBe('application/x-ndjson');
      const lines = jsonl.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { key: string; status: string });
      expect(lines.map((line) => [line.key, line.status]).sort()).toEqual([
        ['green-hydrogen-electrolysers', 'completed'],
        ['perovskite-solar-cells', 'completed'],
        ['solid-state-batteries', 'completed'],
      ]);
      expect((await read(files[1]!)).body.trim().split('\n')).toHaveLength(4);
      expect((await read(files[2]!)).type).toBe('text/markdown; charset=utf-8');

      // Every artifact of the run (item records, outputs) is in the bucket under the prefix.
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await bucket.client.send(new ListObjectsV2Command({ Bucket: bucket.bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      expect(keys.every((key) => key.startsWith('deploy/'))).toBe(true);
      const runFolder = folder.slice(prefix.length, -'/outputs'.length);
      expect(keys.filter((key) => key.startsWith(`deploy/${runFolder}/items/`))).toHaveLength(3);
    }, 120_000);
  });
