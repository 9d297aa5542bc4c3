import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openArtifactStore, openWebhookSecretStore } from '../../src/activities';
import { loadConfig } from '../../src/config';
import { intakeWebhookSecrets, loadIntakeConfig } from '../../src/intake';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import { describeScenarios } from '../support/scenario-env';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

describeScenarios('webhook secrets shared through the artifact store', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await world?.close();
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('the intake verifies the webhook of a task whose secret the worker kept, sharing nothing but the store', async () => {
    const env = getEnv();
    const storeDir = await mkdtemp(path.join(tmpdir(), 'rp-shared-store-'));
    dirs.push(storeDir);
    const intakeKey = randomBytes(32).toString('hex');
    // Each side reads its own environment, as `rp worker` and `rp intake` do; only ARTIFACT_DIR names the same place.
    const workerConfig = loadConfig({ ARTIFACT_DIR: storeDir, INTAKE_KEY: intakeKey, INTAKE_PUBLIC_URL: 'https://intake.example.com' });
    const intakeConfig = loadIntakeConfig({ ARTIFACT_DIR: storeDir, INTAKE_KEY: intakeKey });
    const workerSecrets = openWebhookSecretStore({
      store: await openArtifactStore({ kind: 'local', dir: workerConfig.artifactDir }),
      intakeKey: workerConfig.intakeKey!,
    });
    const intakeSecrets = intakeWebhookSecrets(intakeConfig, { store: await openArtifactStore({ kind: 'local', dir: intakeConfig.artifactDir }) });
    world = await makeWorld(env, { webhooks: true, intakeKey, secrets: workerSecrets, intakeSecrets });

    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: `research-task/shared-store/${randomUUID().slice(0, 8)}`,
      args: [{ request: { query: 'Heat pump adoption in Nordic countries', mode: 'fast' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', webhooks: 1 });
    expect(world.intake).toMatchObject({ verified: 1, rejected: 0 });

    // The secret lives in the store, sealed: the record is there, the secret's text is not.
    const secret = (await intakeSecrets.get(result.deepresearchId))!;
    expect(secret).toMatch(/\S{16,}/);
    expect(await filesUnder(storeDir)).toContain(path.join('webhook-secrets', `${result.deepresearchId}.json`));
    const store = await openArtifactStore({ kind: 'local', dir: intakeConfig.artifactDir });
    const stored = await Promise.all((await store.list('')).map(async (ref) => Buffer.from(await store.get(ref.key)).toString('utf8')));
    expect(stored.join('\n')).not.toContain(secret);
    expect(await handle.payloadsContain(secret)).toBe(false);
  });
});
