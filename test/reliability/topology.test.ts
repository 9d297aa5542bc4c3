import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Client, Connection } from '@temporalio/client';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { parsePipelineDefinition } from '../../src/pipelines/load';
import { startPipeline } from '../../src/runs/start';
import { registerWanted } from '../../src/temporal/connect';
import { freePort } from '../../src/temporal/server';
import { projectBinaries, isExecutable } from '../../src/temporal/binaries';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { testStore } from '../support/seaweedfs';
import { openTestBucket, type TestBucket } from '../support/s3-test-store';
import { companies } from '../scenarios/pipeline-world';

// The deployment the README describes, on one machine but sharing nothing but the services: a Temporal
// dev server keeping its state in a database file, an S3 bucket (SeaweedFS), two `rp worker` processes
// and one `rp intake` process, each in an empty folder of its own and configured by environment
// variables only. During a pipeline run one worker is killed with SIGKILL and replaced, and the Temporal
// server is stopped and started again on the same database file.
const ROOT = path.resolve(__dirname, '..', '..');
const BUILD = path.join(ROOT, '.test-build-topology');
// Several times the 100 tasks one page of the service's task list holds, so a create whose answer is lost
// is settled by a look that reads on to the whole list (see find-task.ts).
const ITEMS = 300;
// Once this many tasks exist (more than a page, and fewer than ITEMS / 2, where Temporal restarts), the
// service drops the answers of the next creates (the task is made, the socket is destroyed unanswered)
// until DROPPED_CREATES were dropped.
const DROP_FROM = 110;
const DROPPED_CREATES = 3;
// A second, smaller run started the way a backend starts one: an event to the intake's run route, sent
// twice with one idempotency key, with the intake's defaults (no polling overrides).
const EVENT_ITEMS = 30;
const TEMPORAL_DOWN_MS = 5_000;
const store = testStore();
const temporalCli = projectBinaries().cli;
const missing = !store.available ? store.reason : !isExecutable(temporalCli) ? `no Temporal CLI at ${temporalCli} (run npm run temporal:install)` : undefined;

const describeTopology = missing && !process.env.CI ? describe.skip : describe;

/** Waits until `predicate` holds, checking every 200 ms, or fails naming what it waited for. */
async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resolves when `child` has exited, or after `ms` (false then). */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/** A dev server on a fixed port and database file, which can be stopped and started again. */
class DevServer {
  child?: ChildProcess;
  readonly output: string[] = [];
  constructor(
    readonly port: number,
    private readonly ports: { http: number; metrics: number },
    private readonly dbFile: string,
  ) {}
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    const child = spawn(
      temporalCli,
      [
        'server',
        'start-dev',
        '--headless',
        '--ip=127.0.0.1',
        `--port=${this.port}`,
        `--http-port=${this.ports.http}`,
        `--metrics-port=${this.ports.metrics}`,
        `--db-filename=${this.dbFile}`,
        '--log-level=error',
        '--dynamic-config-value',
        'history.timerProcessorMaxTimeShift="5ms"',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    this.child = child;
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`the dev server exited (${child.exitCode}): ${this.output.join('').slice(-2000)}`);
        const connection = await Connection.connect({ address: this.address, connectTimeout: 1_000 }).catch(() => undefined);
        if (!connection) return false;
        try {
          await connection.workflowService.getSystemInfo({});
          return true;
        } catch {
          return false;
        } finally {
          await connection.close();
        }
      },
      'the dev server to answer',
      60_000,
    );
  }
  /** SIGTERM (the database is closed cleanly), SIGKILL after 20 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill('SIGTERM');
    if (!(await exited(child, 20_000))) {
      child.kill('SIGKILL');
      await exited(child, 5_000);
    }
  }
}

describeTopology(`topology: workers, intake and Temporal in separate processes sharing only an S3 bucket${missing ? ` [${missing}]` : ''}`, () => {
  jest.setTimeout(420_000);
  let dir: string;
  let server: DevServer | undefined;
  let emulator: RunningEmulator | undefined;
  let bucket: TestBucket;
  let connection: Connection | undefined;
  const processes: ChildProcess[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`CI needs the topology test's services: ${missing}`);
    // The processes as users run them: the compiled CLI (`rp worker`, `rp intake`), built once for this file.
    const built = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`building the CLI failed: ${built.stdout}${built.stderr}`);
    dir = await mkdtemp(path.join(tmpdir(), 'rp-topology-'));
  }, 180_000);

  afterAll(async () => {
    for (const child of processes.splice(0)) child.kill('SIGKILL');
    await connection?.close();
    await server?.stop();
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`${ITEMS} DeepResearch items (and ${EVENT_ITEMS} more started through the intake) with completion webhooks: every item once in the bucket's output, no task paid twice, through a worker SIGKILL and a Temporal server restart`, async () => {
    if (!store.available) throw new Error(store.reason);
    const began = Date.now();
    bucket = await openTestBucket(store, 'topology');
    const prefix = 'runs';
    server = new DevServer(await freePort(), { http: await freePort(), metrics: await freePort() }, path.join(dir, 'temporal.db'));
    await server.start();
    connection = await Connection.connect({ address: server.address });
    await registerWanted(connection, 'default', RESEARCH_SEARCH_ATTRIBUTES, () => undefined);
    const client = new Client({ connection, namespace: 'default' });

    // The service on the real clock (webhook timestamps are checked by the intake against its own clock),
    // with fast tasks of about 3 s and webhook retries close together, so a delivery refused while
    // Temporal is down is retried within seconds.
    emulator = await startEmulator({
      seed: 21,
      defaultCreditsUsd: 1_000,
      research: { durationsMs: { fast: 3_000 }, durationJitter: 0.3, webhooks: { backoffMs: 1_000, maxAttempts: 10 } },
    });
    const intakePort = await freePort();
    const intakeUrl = `http://127.0.0.1:${intakePort}`;
    const taskQueue = `topology-${randomBytes(4).toString('hex')}`;
    const intakeKey = randomBytes(32).toString('hex');
    const intakeToken = randomBytes(24).toString('hex');
    // The intake's pipeline definitions: configuration it reads, outside every process's own folder.
    const pipelinesDir = path.join(dir, 'pipelines');
    await mkdir(pipelinesDir);
    await writeFile(
      path.join(pipelinesDir, 'topology-event.yaml'),
      `name: topology-event\ninput:\n  items:\n${companies(EVENT_ITEMS)}\n  key: "{{ item.domain | slug }}"\nstep:\n  deepresearch:\n    query: "Event profile {{ item.name }}"\n    mode: fast\nconcurrency: 20\nbudget_usd: 100\n`,
    );
    const environment = {
      PATH: process.env.PATH ?? '',
      ...bucket.env,
      ARTIFACT_URL: `s3://${bucket.bucket}/${prefix}`,
      INTAKE_KEY: intakeKey,
      INTAKE_PUBLIC_URL: intakeUrl,
      INTAKE_TOKENS: intakeToken,
      INTAKE_PIPELINES_DIR: pipelinesDir,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: taskQueue,
      RESEARCH_API_BASE_URL: emulator.url,
      RESEARCH_API_KEY: emulator.defaultApiKey,
      RESEARCH_API_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'warn',
    };
    const folders: Record<string, string> = {};
    const logs: Record<string, string[]> = {};
    const launch = async (name: string, args: string[]): Promise<ChildProcess> => {
      const cwd = path.join(dir, name);
      await mkdir(cwd);
      folders[name] = cwd;
      const lines: string[] = (logs[name] = []);
      const child = spawn(process.execPath, [path.join(BUILD, 'cli.js'), ...args], { cwd, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
      for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
      processes.push(child);
      return child;
    };
    const intake = await launch('intake', ['intake', '--port', String(intakePort)]);
    let workerA = await launch('worker-1', ['worker']);
    const workerB = await launch('worker-2', ['worker']);
    await until(
      () => {
        if (intake.exitCode !== null) throw new Error(`rp intake exited (${intake.exitCode}): ${logs.intake!.join('').slice(-2000)}`);
        return fetch(`${intakeUrl}/readyz`).then(
          (response) => response.ok,
          () => false,
        );
      },
      'the intake to be ready',
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; rp intake said: ${logs.intake!.join('').slice(-2000)}`);
    });

    const yaml = `
name: topology
input:
  items:
${companies(ITEMS)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }}"
    mode: fast
concurrency: 40
start_rate_per_second: 50
retries: 8
budget_usd: 500
`;
    const loaded = parsePipelineDefinition(yaml, path.join(dir, 'topology.yaml'));
    // Poll delays 20 times shorter than the fast mode's (a lost webhook is caught within seconds).
    const polling = { initialDelayMs: 250, maxDelayMs: 1_000, reconcileDelaysMs: [250, 750, 1_500, 3_000] };
    const started = await startPipeline(client, loaded, {}, { runKey: 'once', taskQueue, polling });
    const workflowId = started.workflowId;

    const tasksCreated = () => emulator!.stats.snapshot().tasksCreated;
    const events: string[] = [];
    const at = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;

    // A quarter of the tasks created: the first worker dies without a word, a new one takes its place.
    await until(() => tasksCreated() >= ITEMS / 4, 'a quarter of the tasks created', 120_000);
    workerA.kill('SIGKILL');
    await exited(workerA, 5_000);
    events.push(`${at()}: worker-1 SIGKILLed after ${tasksCreated()} tasks created; worker-3 started`);
    workerA = await launch('worker-3', ['worker']);

    // More than a page of tasks created: a few creates lose their answers. Each item must find its task
    // (created after the send, with over a hundred others) instead of waiting for an operator or paying twice.
    const dropped = () => emulator!.stats.snapshot().droppedConnections['deepresearch.create'] ?? 0;
    await until(() => tasksCreated() >= DROP_FROM, `${DROP_FROM} tasks created`, 120_000);
    emulator.faults.replace({ 'deepresearch.create': { dropAfterProcessingRate: 1 } });
    await until(() => dropped() >= DROPPED_CREATES, `${DROPPED_CREATES} create answers dropped`, 60_000).finally(() => emulator!.faults.replace({}));
    events.push(`${at()}: ${dropped()} create answers dropped after ${tasksCreated()} tasks created`);

    // Half of the tasks created: Temporal stops (SIGTERM) and comes back on the same database file and port.
    await until(() => tasksCreated() >= ITEMS / 2, 'half of the tasks created', 120_000);
    await server.stop();
    events.push(`${at()}: Temporal dev server stopped after ${tasksCreated()} tasks created`);
    await new Promise((resolve) => setTimeout(resolve, TEMPORAL_DOWN_MS));
    await server.start();
    events.push(`${at()}: Temporal dev server started again on the same database file`);
    const createdAtRestart = tasksCreated();
    await until(() => tasksCreated() > createdAtRestart || tasksCreated() >= ITEMS, 'a task created after the restart', 120_000);
    events.push(`${at()}: first task created after the restart (${tasksCreated()} in all)`);

    // A backend's event through the intake (which lived through the restart): the first send starts the
    // run, a repeat with the same idempotency key starts nothing.
    const sendEvent = async () => {
      const response = await fetch(`${intakeUrl}/pipelines/topology-event/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${intakeToken}`, 'idempotency-key': 'backend-event-1', 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: response.status, body: (await response.json()) as { workflowId?: string; started?: boolean; error?: string } };
    };
    const firstEvent = await sendEvent();
    const repeatedEvent = await sendEvent();
    events.push(`${at()}: event run started through the intake (${firstEvent.status}, then ${repeatedEvent.status} for the repeat)`);
    expect({ first: firstEvent.status, repeat: repeatedEvent.status, started: [firstEvent.body.started, repeatedEvent.body.started] }).toEqual({
      first: 201,
      repeat: 200,
      started: [true, false],
    });
    const eventWorkflowId = firstEvent.body.workflowId!;
    expect(repeatedEvent.body.workflowId).toBe(eventWorkflowId);

    // The run ends: read through describe (a long poll on a server that went away would need its own retries).
    let status = '';
    let eventStatus = '';
    let describeError = '';
    const statusOf = (id: string, last: string) =>
      client.workflow
        .getHandle(id)
        .describe()
        .then(
          (description) => description.status.name,
          (error: unknown) => ((describeError = String(error)), last),
        );
    const closed = (name: string) => name !== 'RUNNING' && name !== '';
    await until(
      async () => {
        if (!closed(status)) status = await statusOf(workflowId, status);
        if (!closed(eventStatus)) eventStatus = await statusOf(eventWorkflowId, eventStatus);
        return closed(status) && closed(eventStatus);
      },
      'both runs to close',
      300_000,
    ).catch((error: unknown) => {
      const tail = (name: string) => (logs[name] ?? []).join('').slice(-1500);
      throw new Error(
        `${String(error)}\nevents: ${events.join('; ')}\nstatus: ${status}, event run ${eventStatus} ${describeError}\nservice: ${JSON.stringify({ tasksCreated: tasksCreated(), webhooks: emulator!.stats.snapshot().webhooks, charged: emulator!.stats.snapshot().chargedUsd })}\n` +
          Object.keys(logs)
            .map((name) => `${name}: ${tail(name)}`)
            .join('\n'),
      );
    });
    events.push(`${at()}: both runs closed`);
    const result = (await client.workflow.getHandle(workflowId).result()) as PipelineRunResult;
    const eventResult = (await client.workflow.getHandle(eventWorkflowId).result()) as PipelineRunResult;
    const elapsedS = (Date.now() - began) / 1000;
    const stats = emulator.stats.snapshot();

    // Outputs: the JSONL in the bucket.
    const outputOf = async (run: PipelineRunResult) => {
      const file = run.outputs.files.find((candidate) => candidate.uri.endsWith('.jsonl'));
      const location = /^s3:\/\/([^/]+)\/(.+)$/.exec(file?.uri ?? '');
      const text = location ? await (await bucket.client.send(new GetObjectCommand({ Bucket: location[1], Key: location[2] }))).Body!.transformToString() : '';
      const records = text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { key: string; status: string; report?: string; possibly_charged_usd?: number });
      return { uri: file?.uri, records };
    };
    const { uri: jsonlUri, records: lines } = await outputOf(result);
    const { uri: eventJsonlUri, records: eventLines } = await outputOf(eventResult);
    const possiblyChargedTwice = [...lines, ...eventLines].reduce((sum, line) => sum + (line.possibly_charged_usd ?? 0), 0);
    const objects: string[] = [];
    let token: string | undefined;
    do {
      const page = await bucket.client.send(new ListObjectsV2Command({ Bucket: bucket.bucket, ContinuationToken: token }));
      objects.push(...(page.Contents ?? []).map((object) => object.Key!));
      token = page.NextContinuationToken;
    } while (token);
    const folderFiles = Object.fromEntries(await Promise.all(Object.entries(folders).map(async ([name, folder]) => [name, await filesUnder(folder)] as const)));
    const mostTasksPerItem = Math.max(0, ...Object.values(stats.tasksCreatedByMetadata));

    process.stdout.write(
      `\n[reliability] topology: 2 workers + 1 intake + Temporal dev server (db file) + SeaweedFS\n${Object.entries({
        items: ITEMS,
        eventItems: EVENT_ITEMS,
        events,
        status,
        eventStatus,
        counts: result.counts,
        eventCounts: eventResult.counts,
        elapsedS: elapsedS.toFixed(1),
        tasksCreated: stats.tasksCreated,
        mostTasksPerItem,
        chargedUsd: stats.chargedUsd.toFixed(4),
        spentUsd: (result.ledger.spentUsd + eventResult.ledger.spentUsd).toFixed(4),
        possiblyChargedTwiceUsd: possiblyChargedTwice.toFixed(4),
        output: jsonlUri,
        eventOutput: eventJsonlUri,
        webhooks: stats.webhooks,
        droppedCreates: stats.droppedConnections['deepresearch.create'] ?? 0,
        taskListReads: Object.values(stats.requests['deepresearch.list'] ?? {}).reduce((sum, count) => sum + count, 0),
        objectsInBucket: objects.length,
        folderFiles,
      })
        .map(([name, value]) => `  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('\n')}\n`,
    );

    expect({ status, eventStatus }).toEqual({ status: 'COMPLETED', eventStatus: 'COMPLETED' });
    expect(result.counts).toMatchObject({ read: ITEMS, completed: ITEMS, failed: 0 });
    expect(eventResult.counts).toMatchObject({ read: EVENT_ITEMS, completed: EVENT_ITEMS, failed: 0 });
    // Every item exactly once in its run's output, which is an object in the bucket.
    const keys = (count: number) => Array.from({ length: count }, (_, index) => `company-${index + 1}-example`).sort();
    for (const uri of [jsonlUri, eventJsonlUri]) expect(uri?.startsWith(`s3://${bucket.bucket}/${prefix}/`)).toBe(true);
    expect(lines.map((line) => line.key).sort()).toEqual(keys(ITEMS));
    expect(eventLines.map((line) => line.key).sort()).toEqual(keys(EVENT_ITEMS));
    expect([...lines, ...eventLines].every((line) => line.status === 'completed' && line.report?.startsWith(`s3://${bucket.bucket}/${prefix}/`))).toBe(true);
    // No DeepResearch task paid twice: one task per item, from the service's books.
    expect(stats.tasksCreated).toBe(ITEMS + EVENT_ITEMS);
    expect(mostTasksPerItem).toBe(1);
    // Money: the runs' ledgers never show less than the service charged.
    expect(result.ledger.spentUsd + eventResult.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
    // The creates whose answers were dropped: their tasks were found and adopted (one task per item above,
    // every item completed), after looks at the task list that read past its first page.
    expect(stats.droppedConnections['deepresearch.create']).toBeGreaterThanOrEqual(DROPPED_CREATES);
    // Completion webhooks went through the intake, which verified them with the secrets the workers kept in
    // the bucket (a refused delivery is retried and counts as failed in the end). The only ones it may
    // refuse are those of the tasks whose create answer, which carries the secret, was dropped: those
    // items are followed by polling. A run may close before the last deliveries (an item whose webhook
    // waited out the restart is also seen by its poll).
    expect(stats.webhooks.failed).toBeLessThanOrEqual(stats.droppedConnections['deepresearch.create']!);
    expect(stats.webhooks.delivered).toBeGreaterThanOrEqual(ITEMS / 2);
    // No process left anything in its own folder: everything another process needs is in the bucket.
    expect(folderFiles).toEqual(Object.fromEntries(Object.keys(folders).map((name) => [name, []])));
    // The intake and the surviving worker lived through the server's restart.
    expect({ intake: intake.exitCode, workers: [workerA.exitCode, workerB.exitCode] }).toEqual({ intake: null, workers: [null, null] });
  });
});
