import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { parseCodecKeys } from '../src/codec';
import { Client, Connection } from '@temporalio/client';
import { DEV_PLANNING_ANSWER, DevInterruptedError, planningAnswers, runDev, runDevUi } from '../src/dev';
import { checkpointAnswerProblem } from '../src/workflows/checkpoint-answers';

// `rp dev` starts its own dev server (with the UI) from the first binary found, as on a fresh machine.
const env = { PATH: process.env.PATH, ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}) };

async function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect(Number(port), host === 'localhost' ? '127.0.0.1' : host!, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const asking = { interaction_id: 'i1', type: 'planning_questions', data: {}, created_at: 0, timeout_ms: 300_000 } as const;
const problem = (response: unknown) => checkpointAnswerProblem(asking, { interactionId: 'i1', response });

describe('rp dev answering planning questions', () => {
  test('answers each question the checkpoint asks, in a shape the checkpoint accepts', () => {
    const answers = planningAnswers({
      data: { questions: [{ id: 'q1', question: 'Which regions?' }, 'Who reads it?'] },
      expected_response: { answers: [{ question: 'Which regions?', answer: 'string' }] },
    });
    expect(answers).toEqual([
      { question: 'Which regions?', answer: DEV_PLANNING_ANSWER },
      { question: 'Who reads it?', answer: DEV_PLANNING_ANSWER },
    ]);
    expect(problem({ answers })).toBeUndefined();
  });

  test('still gives one answer when the interaction lists no questions (an empty list is refused)', () => {
    const answers = planningAnswers({ data: {} });
    expect(answers).toHaveLength(1);
    expect(problem({ answers })).toBeUndefined();
    expect(problem({ answers: [] })).toBeDefined();
  });
});

describe('rp dev', () => {
  jest.setTimeout(120_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-dev-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('starts a dev server with its UI, runs the example pipeline with its checkpoints answered, and stops what it started', async () => {
    const lines: string[] = [];
    const bar: string[] = [];
    let uiPage: Promise<{ status: number; body: string }> | undefined;
    const result = await runDev({
      env,
      artifactDir: dir,
      speed: 600,
      progress: { isTTY: false, write: (text: string) => bar.push(text) },
      log: (line) => {
        lines.push(line);
        const ui = /^Temporal UI: (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1];
        if (ui) uiPage = fetch(ui).then(async (response) => ({ status: response.status, body: await response.text() }));
      },
    });
    expect(result.run).toMatchObject({ status: 'completed', pipeline: 'storage-market', counts: { read: 3, completed: 3, failed: 0 } });
    // Each item's plan review was answered on the way, and the progress showed it.
    expect(result.answered.map((entry) => entry.item).sort()).toEqual(['contoso-thermal-example', 'fabrikam-grid-example', 'northwind-storage-example']);
    expect(result.answered.every((entry) => entry.type === 'plan_review')).toBe(true);
    // Each task's completion webhook came back through the intake.
    expect(lines.some((line) => /^intake on http:\/\/127\.0\.0\.1:\d+ \(completion webhooks go through it\)$/.test(line))).toBe(true);
    expect(result.webhooksVerified).toBe(3);
    expect(bar.join('')).toMatch(/answered the plan_review checkpoint of item \S+: \{"approved":true\}/);
    expect(bar.join('')).toMatch(/storage-market\/dev-\S+: completed, 3\/3 settled \(3 completed, 0 failed, 0 running\)/);
    // It ends by saying where the outputs are, and they are there.
    const [jsonl] = result.run.outputs.files;
    expect(lines).toContain(`outputs in ${result.run.outputs.folderUri}`);
    expect((await readFile(fileURLToPath(jsonl!.uri), 'utf8')).trim().split('\n')).toHaveLength(3);
    // The UI answered while the run was going.
    expect(await uiPage).toMatchObject({ status: 200, body: expect.stringContaining('<html') });
    expect(lines.join('\n')).toMatch(
      /started pipeline storage-market, workflow pipeline-run\/storage-market\/dev-\S+: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\//,
    );
    const address = /^Temporal server at (\S+) /m.exec(lines.join('\n'))?.[1];
    expect(address).toBeDefined();
    expect(await accepts(address!)).toBe(false);
  });

  it('keeps the run in its database after it exits, and --ui-only serves it again in the UI', async () => {
    const database = path.join(dir, 'state', 'dev-server.db');
    const lines: string[] = [];
    const result = await runDev({ env, artifactDir: dir, speed: 600, database, log: (line) => lines.push(line) });
    expect(result.run.status).toBe('completed');
    expect(lines).toContain(`the UI stops with rp dev; the run's history is kept in ${database}: \`rp dev --ui-only\` opens it again`);
    const stop = new AbortController();
    const seen: string[] = [];
    let described: Promise<string> | undefined;
    const ui = runDevUi({
      env,
      database,
      signal: stop.signal,
      log: (line) => {
        seen.push(line);
        const address = /^Temporal server at (\S+) /.exec(line)?.[1];
        if (address) {
          described = (async () => {
            const connection = await Connection.connect({ address });
            try {
              return (await new Client({ connection }).workflow.getHandle(result.workflowId).describe()).status.name;
            } finally {
              await connection.close();
            }
          })();
        }
        // Stops either way; `described` is awaited below, where its failure is reported.
        if (line.startsWith('Ctrl-C'))
          void described?.then(
            () => stop.abort(),
            () => stop.abort(),
          );
      },
    });
    const { uiUrl, address } = await ui;
    expect(await described).toBe('COMPLETED');
    expect(uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.some((line) => line.startsWith(`Temporal UI: ${uiUrl}/namespaces/default/workflows`))).toBe(true);
    expect(await accepts(address)).toBe(false);
  });

  it('on interrupt cancels the run and stops the dev server', async () => {
    const interrupt = new AbortController();
    const lines: string[] = [];
    const run = runDev({
      env,
      artifactDir: dir,
      speed: 1,
      signal: interrupt.signal,
      log: (line) => {
        lines.push(line);
        if (line.startsWith('started pipeline')) interrupt.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(DevInterruptedError);
    expect(lines).toContain('interrupted: cancelling the pipeline run…');
    const address = /^Temporal server at (\S+) /m.exec(lines.join('\n'))?.[1];
    expect(await accepts(address!)).toBe(false);
  });

  it('with codec keys runs the example pipeline and points the UI at a local codec endpoint, stopped at the end', async () => {
    const lines: string[] = [];
    let settings: Promise<unknown> | undefined;
    let codecUrl: string | undefined;
    const result = await runDev({
      env,
      artifactDir: dir,
      speed: 600,
      codec: parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`),
      log: (line) => {
        lines.push(line);
        codecUrl ??= /the UI decodes them through (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
        const ui = /^Temporal UI: (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1];
        if (ui) settings = fetch(`${ui}/api/v1/settings`).then((response) => response.json());
      },
    });
    expect(result.run).toMatchObject({ status: 'completed', counts: { completed: 3 } });
    expect(codecUrl).toBeDefined();
    // The dev server's UI was told where to decode payloads.
    expect(await settings).toMatchObject({ Codec: { Endpoint: codecUrl } });
    // The codec server stopped with the rest.
    await expect(fetch(`${codecUrl}/decode`, { method: 'POST' })).rejects.toThrow();
  });
});
