import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { openArtifactStore } from '../../src/activities';
import { loadIntakeConfig, runIntake } from '../../src/intake';
import { freePort } from '../../src/temporal/server';
import { describeScenarios } from '../support/scenario-env';
import { testServer } from '../support/server/test-server';
import { researchSetup } from '../scenarios/world';

const TOKEN = 'intake-codec-token-0123456789';

describeScenarios('the intake on an encrypted namespace', researchSetup, (getEnv) => {
  it("writes a run's input with the worker's codec (PAYLOAD_CODEC_KEYS): binary/encrypted in history, no parameter in plain text", async () => {
    const server = testServer();
    if (!server.available) throw new Error('no test server');
    const dir = await mkdtemp(path.join(tmpdir(), 'rp-intake-codec-'));
    const name = `secret-${randomUUID().slice(0, 8)}`;
    await writeFile(
      path.join(dir, `${name}.yaml`),
      `name: ${name}\nparameters:\n  company: { type: string }\nstep:\n  answer:\n    query: "Headcount of {{ params.company }}"\nbudget_usd: 1\n`,
    );
    const config = loadIntakeConfig({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `nobody-${randomUUID()}`,
      INTAKE_KEY: randomBytes(32).toString('hex'),
      INTAKE_TOKENS: TOKEN,
      INTAKE_PIPELINES_DIR: dir,
      ARTIFACT_DIR: path.join(dir, 'artifacts'),
      PAYLOAD_CODEC_KEYS: `k7:${randomBytes(32).toString('base64')}`,
    });
    const port = await freePort();
    const stop = new AbortController();
    const running = runIntake(
      config,
      { port, host: '127.0.0.1', signal: stop.signal },
      { store: await openArtifactStore({ kind: 'local', dir: config.artifactDir }) },
    );
    try {
      let answer: Response | undefined;
      for (let tries = 0; tries < 50 && !answer; tries++) {
        answer = await fetch(`http://127.0.0.1:${port}/pipelines/${name}/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'order-7', 'content-type': 'application/json' },
          body: JSON.stringify({ params: { company: 'Acme Confidential Holdings' } }),
        }).catch(async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          return undefined;
        });
      }
      expect(answer?.status).toBe(201);
      const raw = new Client({ connection: getEnv().client.connection, namespace: server.namespace });
      const history = await raw.workflow.getHandle(`pipeline-run/${name}/order-7`).fetchHistory();
      const [input] = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      expect(Buffer.from(input!.metadata!.encoding!).toString()).toBe('binary/encrypted');
      expect(Buffer.from(input!.metadata!['encryption-key-id']!).toString()).toBe('k7');
      expect(Buffer.from(input!.data!).toString('latin1')).not.toContain('Acme Confidential Holdings');
      await raw.workflow.getHandle(`pipeline-run/${name}/order-7`).terminate('test over');
    } finally {
      stop.abort();
      await running;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
