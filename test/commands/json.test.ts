import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { main } from '../../src/cli';
import type { TemporalOpener } from '../../src/commands/common';
import { budgetCommand, cancelCommand, pauseResumeCommand, respondCommand, startRunCommand } from '../../src/commands/runs';
import { scheduleActionCommand, scheduleCreateCommand, scheduleListCommand, scheduleSyncCommand } from '../../src/commands/schedules';
import { captureIo } from '../support/capture-io';
import { testServer } from '../support/server/test-server';

const EXAMPLES = path.join(__dirname, '../../pipelines');

const definition = (name: string, extra = '') => `
name: ${name}
input:
  items: [Acme, Globex]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }}"
    data_max_price: 0.05
budget_usd: 5
${extra}`;

/** What `rp --json` wrote: stdout must be exactly one JSON document. */
function document(stdout: jest.SpyInstance): Record<string, unknown> {
  const text = stdout.mock.calls.map((call) => String(call[0])).join('');
  return JSON.parse(text) as Record<string, unknown>;
}

/** Runs `rp` with process.env changed for the call. */
async function withEnv<T>(changes: Record<string, string | undefined>, act: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(changes).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(changes);
  try {
    return await act();
  } finally {
    apply(saved);
  }
}

describe('rp --json: one JSON document on stdout, errors included', () => {
  let stdout: jest.SpyInstance;
  let folder: string;
  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    folder = mkdtempSync(path.join(tmpdir(), 'rp-json-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(folder, { recursive: true, force: true });
  });

  test('pipelines validate: {valid, files}, each file valid with its pipeline or with its issues (exit 1)', async () => {
    const good = path.join(EXAMPLES, 'quick-answers.yaml');
    const bad = path.join(folder, 'bad.yaml');
    writeFileSync(bad, 'name: bad\nbudget_usd: 1\nstep:\n  answer:\n    query: q\n    search_type: everything\n');
    await expect(main(['pipelines', 'validate', good, bad, path.join(folder, 'missing.yaml'), '--json'])).resolves.toBe(1);
    expect(document(stdout)).toEqual({
      valid: false,
      files: [
        { file: good, valid: true, pipeline: 'quick-answers', items: 3 },
        {
          file: bad,
          valid: false,
          message: `${bad}:6:18 step.answer.search_type: must be one of all|web|proprietary|news`,
          issues: [{ file: bad, line: 6, column: 18, path: 'step.answer.search_type', message: 'must be one of all|web|proprietary|news' }],
        },
        { file: path.join(folder, 'missing.yaml'), valid: false, message: expect.stringContaining('ENOENT') },
      ],
    });
    stdout.mockClear();
    await expect(main(['pipelines', 'validate', good, '--json'])).resolves.toBe(0);
    expect(document(stdout)).toEqual({ valid: true, files: [{ file: good, valid: true, pipeline: 'quick-answers', items: 3 }] });
  });

  test('pipelines schema --json: the JSON Schema', async () => {
    await expect(main(['pipelines', 'schema', '--json'])).resolves.toBe(0);
    expect(document(stdout)).toMatchObject({ type: 'object' });
  });

  test('run --dry-run --json: the report with passed (exit 0), or with its item errors (exit 1)', async () => {
    await expect(main(['run', path.join(EXAMPLES, 'earnings-batch.yaml'), '--dry-run', '--set', 'quarter=Q4 2026', '--run-key', 'q4', '--json'])).resolves.toBe(
      0,
    );
    expect(document(stdout)).toMatchObject({
      pipeline: 'earnings-batch',
      items: 6,
      errorCount: 0,
      errors: [],
      passed: true,
      budgetUsd: 1,
      params: { quarter: 'Q4 2026' },
      estimate: { usd: 0.6, calls: { 'POST /v1/deepresearch/batches/{id}/tasks': 1 } },
    });
    stdout.mockClear();
    const file = path.join(folder, 'p.yaml');
    writeFileSync(
      file,
      'name: p\nbudget_usd: 5\ninput:\n  items: [{ company: Acme }]\n  key: "{{ item.company | slug }}"\nstep:\n  deepresearch: { query: "About {{ item.company }} at {{ item.website }}", mode: fast }\n',
    );
    await expect(main(['run', file, '--dry-run', '--json'])).resolves.toBe(1);
    expect(document(stdout)).toMatchObject({
      passed: false,
      errorCount: 2,
      errors: [
        expect.stringContaining('missing variable item.website'),
        'step.deepresearch.query: {{ item.website }}: no item of input.items has a field "website" (fields: company)',
      ],
    });
  });

  test("a workflow-step dry run prints only JSON on stdout (the embedded emulator's notice goes to stderr)", async () => {
    await expect(main(['run', path.join(EXAMPLES, 'company-profiles.yaml'), '--dry-run', '--json'])).resolves.toBe(0);
    expect(document(stdout)).toMatchObject({ pipeline: 'company-profiles', previews: 2, passed: true });
  });

  test('bad usage: {"error": {"kind": "usage"}} with exit 2, for commander\'s errors and the commands\' own', async () => {
    await expect(main(['run', path.join(EXAMPLES, 'quick-answers.yaml'), '--dry-run', '--set', 'colour=red', '--json'])).resolves.toBe(2);
    expect(document(stdout)).toEqual({ error: { kind: 'usage', message: 'unknown parameter "colour" (parameters: none)' } });
    stdout.mockClear();
    await expect(main(['status', '--frobnicate', '--json'])).resolves.toBe(2);
    expect(document(stdout)).toEqual({ error: { kind: 'usage', message: '--frobnicate: unknown option (see --help)' } });
    stdout.mockClear();
    await expect(main(['run', path.join(EXAMPLES, 'quick-answers.yaml'), '--run-key', 'week 48/x', '--json'])).resolves.toBe(2);
    expect(document(stdout)).toMatchObject({ error: { kind: 'usage', message: expect.stringContaining('--run-key: run key "week 48/x" must be') } });
    stdout.mockClear();
    await expect(main(['intake', '--port', '70000', '--json'])).resolves.toBe(2);
    expect(document(stdout)).toEqual({ error: { kind: 'usage', message: '--port: must be an integer from 0 to 65535 (got "70000")' } });
  });

  test('an invalid definition for run or schedule: {"error": {"kind": "definition", "issues"}} with exit 1', async () => {
    const bad = path.join(folder, 'bad.yaml');
    writeFileSync(bad, 'name: bad\nbudget_usd: 1\nstep:\n  answer:\n    query: q\n    search_type: everything\n');
    const issues = [{ file: bad, line: 6, column: 18, path: 'step.answer.search_type', message: 'must be one of all|web|proprietary|news' }];
    await expect(main(['run', bad, '--json'])).resolves.toBe(1);
    expect(document(stdout)).toEqual({
      error: { kind: 'definition', message: `${bad}:6:18 step.answer.search_type: must be one of all|web|proprietary|news`, issues },
    });
    stdout.mockClear();
    await expect(main(['schedule', 'sync', bad, path.join(EXAMPLES, 'competitor-scan.yaml'), '--dry-run', '--json'])).resolves.toBe(1);
    expect(document(stdout)).toMatchObject({ error: { kind: 'definition', issues } });
  });

  test('bad configuration and an unreachable Temporal: {"error": {"kind": "config" | "failed"}} with exit 1', async () => {
    await withEnv({ TEMPORAL_ADDRESS: 'not an address' }, async () => {
      await expect(main(['status', 'p/k', '--json'])).resolves.toBe(1);
    });
    expect(document(stdout)).toEqual({
      error: {
        kind: 'config',
        message: expect.stringContaining('TEMPORAL_ADDRESS: must be host:port'),
        issues: [{ variable: 'TEMPORAL_ADDRESS', message: 'must be host:port, e.g. localhost:7233' }],
      },
    });
    stdout.mockClear();
    await withEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1' }, async () => {
      await expect(main(['schedule', 'list', '--json'])).resolves.toBe(1);
    });
    expect(document(stdout)).toEqual({ error: { kind: 'failed', message: expect.stringContaining('cannot reach Temporal at 127.0.0.1:1') } });
  });

  test('without --json the errors stay human text on stderr, and main rejects a configuration error as before', async () => {
    await withEnv({ TEMPORAL_ADDRESS: 'not an address' }, async () => {
      await expect(main(['status', 'p/k'])).rejects.toThrow(/TEMPORAL_ADDRESS: must be host:port/);
    });
    expect(stdout).not.toHaveBeenCalled();
  });
});

const server = testServer();

(server.available ? describe : describe.skip)(`rp --json against the real server${server.available ? '' : ` [skipped: ${server.reason}]`}`, () => {
  jest.setTimeout(60_000);
  if (!server.available) return;
  let connection: Connection;
  let folder: string;
  // No worker polls this queue: what is tested is what the commands print, not what the runs do.
  const taskQueue = `json-${randomUUID()}`;
  const opener: TemporalOpener = async () => ({ client: new Client({ connection, namespace: server.namespace }), taskQueue, close: async () => undefined });
  beforeAll(async () => {
    connection = await Connection.connect({ address: server.address });
    folder = mkdtempSync(path.join(tmpdir(), 'rp-json-'));
  });
  afterAll(async () => {
    await connection.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('run, pause, resume and cancel print their ids; respond and budget refusals are JSON errors', async () => {
    const name = `json-${randomUUID().slice(0, 8)}`;
    const file = path.join(folder, `${name}.yaml`);
    writeFileSync(file, definition(name));
    const started = captureIo();
    expect(await startRunCommand(file, { runKey: 'k1', json: true }, started.io, opener)).toBe(0);
    expect(JSON.parse(started.out())).toEqual({ workflowId: `pipeline-run/${name}/k1`, runKey: 'k1', started: true });
    const again = captureIo();
    // With the UI's address known, the run's page in it is printed too.
    const withUi: TemporalOpener = async () => ({ ...(await opener()), uiUrl: 'http://127.0.0.1:8233' });
    expect(await startRunCommand(file, { runKey: 'k1', json: true }, again.io, withUi)).toBe(0);
    expect(JSON.parse(again.out())).toEqual({
      workflowId: `pipeline-run/${name}/k1`,
      runKey: 'k1',
      started: false,
      uiUrl: `http://127.0.0.1:8233/namespaces/${server.namespace}/workflows/pipeline-run%2F${name}%2Fk1`,
    });
    const text = captureIo();
    expect(await startRunCommand(file, { runKey: 'k1' }, text.io, withUi)).toBe(0);
    expect(text.out()).toContain(`see it in the Temporal UI: http://127.0.0.1:8233/namespaces/${server.namespace}/workflows/pipeline-run%2F${name}%2Fk1`);
    for (const action of ['pause', 'resume'] as const) {
      const out = captureIo();
      expect(await pauseResumeCommand(action, `${name}/k1`, { json: true, reason: 'test' }, out.io, opener)).toBe(0);
      expect(JSON.parse(out.out())).toEqual({ [action]: true, workflowId: `pipeline-run/${name}/k1` });
    }
    const respond = captureIo();
    expect(await respondCommand(`${name}/nope`, { json: true, item: 'acme', interaction: 'int_1', response: '{"approved": true}' }, respond.io, opener)).toBe(
      1,
    );
    expect(JSON.parse(respond.out())).toEqual({ error: { kind: 'refused', message: expect.stringMatching(/^respond: refused: /) } });
    expect(respond.err()).toBe('');
    const budget = captureIo();
    expect(await budgetCommand(`${name}/nope`, { json: true, add: '1' }, budget.io, opener)).toBe(1);
    expect(JSON.parse(budget.out())).toEqual({ error: { kind: 'refused', message: expect.stringMatching(/^budget: refused: /) } });
    const cancelled = captureIo();
    expect(await cancelCommand(`${name}/k1`, { json: true }, cancelled.io, opener)).toBe(0);
    expect(JSON.parse(cancelled.out())).toEqual({ cancelled: `pipeline-run/${name}/k1` });
    await connection.workflowService.terminateWorkflowExecution({
      namespace: server.namespace,
      workflowExecution: { workflowId: `pipeline-run/${name}/k1` },
      reason: 'test over',
    });
  });

  test('schedule create, list, describe, pause, unpause, sync --dry-run and delete', async () => {
    const name = `json-${randomUUID().slice(0, 8)}`;
    const id = `pipeline-schedule/${name}`;
    const file = path.join(folder, `${name}.yaml`);
    writeFileSync(file, definition(name, 'schedule:\n  cron: "0 7 * * MON"\n  timezone: Europe/London'));
    const json = async (act: (io: ReturnType<typeof captureIo>['io']) => Promise<number>): Promise<unknown> => {
      const out = captureIo();
      expect(await act(out.io)).toBe(0);
      return JSON.parse(out.out());
    };
    expect(await json((io) => scheduleCreateCommand(file, { json: true }, io, opener))).toEqual({ created: id });
    expect(await json((io) => scheduleActionCommand('describe', name, { json: true }, io, opener))).toMatchObject({
      id,
      paused: false,
      nextRuns: expect.arrayContaining([expect.any(String)]),
      recentRuns: [],
      runningWorkflows: [],
    });
    const plan = (await json((io) => scheduleSyncCommand([file], { json: true, dryRun: true }, io, opener))) as Record<
      'create' | 'update' | 'delete' | 'unchanged',
      string[]
    >;
    expect(Object.keys(plan).sort()).toEqual(['create', 'delete', 'unchanged', 'update']);
    expect([...plan.update, ...plan.unchanged]).toContain(id);
    expect(await json((io) => scheduleActionCommand('pause', name, { json: true, note: 'hold' }, io, opener))).toEqual({ pause: id });
    expect(await json((io) => scheduleActionCommand('unpause', name, { json: true }, io, opener))).toEqual({ unpause: id });
    // The server's list is eventually consistent.
    const deadline = Date.now() + 20_000;
    let listed: Array<{ id: string; paused: boolean }> = [];
    while (!listed.some((entry) => entry.id === id) && Date.now() < deadline) {
      listed = (await json((io) => scheduleListCommand({ json: true }, io, opener))) as typeof listed;
      if (!listed.some((entry) => entry.id === id)) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(listed).toContainEqual(expect.objectContaining({ id, paused: false, nextRun: expect.any(String) }));
    expect(await json((io) => scheduleActionCommand('delete', name, { json: true }, io, opener))).toEqual({ delete: id });
  });

  test('register-search-attributes --json: {namespace, added}', async () => {
    await withEnv({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }, async () => {
      const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
      jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        await expect(main(['register-search-attributes', '--json'])).resolves.toBe(0);
        expect(document(stdout)).toEqual({ namespace: server.namespace, added: [] });
      } finally {
        jest.restoreAllMocks();
      }
    });
  });
});
