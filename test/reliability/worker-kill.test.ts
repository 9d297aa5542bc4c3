import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PipelineRunResult } from '../../src/workflows/pipeline-types';
import { describeScenarios } from '../support/scenario-env';
import { testServer } from '../support/server/test-server';
import { companies, pipelineInput } from '../scenarios/pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';

// `rp worker` as its own process, killed with SIGKILL (no shutdown, no grace: as a node dying) twice
// per run while paid calls are in flight, and replaced by a fresh process each time.
const ROOT = path.resolve(__dirname, '..', '..');
const BUILD = path.join(ROOT, '.test-build');
const report = (title: string, figures: Record<string, unknown>) => process.stdout.write(`\n[reliability] ${title}\n${Object.entries(figures).map(([name, value]) => `  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('\n')}\n`);

describeScenarios('reliability: worker processes killed with SIGKILL mid-call', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let dir: string;
  const workers: ChildProcess[] = [];
  beforeAll(() => {
    // The worker as users run it: the compiled CLI (`rp worker`), built once for this suite.
    const built = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`building the worker failed: ${built.stdout}${built.stderr}`);
  }, 120_000);
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-kill-'));
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) worker.kill('SIGKILL');
    await world?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function startWorker(taskQueue: string): ChildProcess {
    const server = testServer();
    if (!server.available) throw new Error('no test server');
    const worker = spawn(process.execPath, [path.join(BUILD, 'cli.js'), 'worker'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace, TEMPORAL_TASK_QUEUE: taskQueue,
        RESEARCH_API_BASE_URL: world!.emulator.url, RESEARCH_API_KEY: world!.emulator.defaultApiKey, RESEARCH_API_TIMEOUT_MS: '2000',
        ARTIFACT_DIR: path.join(dir, 'artifacts'), WEBHOOK_SECRET_DIR: path.join(dir, 'secrets'), LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    workers.push(worker);
    return worker;
  }

  /** Waits until `predicate` holds, checking every 50 ms (real time), or fails naming what it waited for. */
  async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it.each([
    ['deepresearch', 'deepresearch.create', 'deepresearch:\n    query: "Profile {{ item.name }}"\n    mode: fast'],
    ['answer', 'answer', 'answer:\n    query: "Headcount of {{ item.name }}"\n    data_max_price: 0.05'],
    ['search', 'search', 'search:\n    query: "{{ item.name }} news"\n    max_num_results: 2\n    max_price: 1\n    response_length: 200'],
  ] as const)('%s items: every item once in the outputs, nothing lost, no task paid twice, every possible double charge counted, through two SIGKILLs, 5xx, dropped answers and 429 bursts', async (kind, route, step) => {
    const env = getEnv();
    const items = 12;
    world = await makeWorld(env, {
      emulator: {
        defaultCreditsUsd: 100,
        faults: { [route]: { latencyMs: [200, 600], errorRate: 0.1, dropAfterProcessingRate: 0.1, rateLimitBurst: { every: 7, count: 2 } } },
      },
    });
    const taskQueue = `kill-${kind}-${Date.now()}`;
    const input = await pipelineInput(`
name: killed-${kind}
input:
  items:
${companies(items)}
  key: "{{ item.domain | slug }}"
step:
  ${step}
concurrency: 4
start_rate_per_second: 50
retries: 8
budget_usd: 20
`, world, { runKey: 'twice' });
    let worker = startWorker(taskQueue);
    const handle = await env.client.workflow.start('pipelineRunWorkflow', { taskQueue, workflowId: `pipeline-run/killed-${kind}/twice`, args: [input] });
    // Progress and calls in flight are read from the service's side: a query to a run whose worker was
    // just killed waits for Temporal to notice, which is not what this suite measures.
    const answered = () => Object.entries(world!.emulator.stats.snapshot().requests[route] ?? {}).filter(([status]) => status.startsWith('2')).reduce((sum, [, count]) => sum + count, 0);
    const inFlight = () => world!.emulator.stats.snapshot().injectedFaults[route]?.latency ?? 0;
    const kills: string[] = [];
    for (const share of [0.25, 0.6]) {
      await until(() => answered() >= Math.ceil(items * share), `${share * 100} % of the calls answered`, 120_000);
      const calls = inFlight();
      await until(() => inFlight() > calls, 'a paid call in flight', 60_000);
      worker.kill('SIGKILL');
      kills.push(`after ${answered()} of ${items} calls answered`);
      worker = startWorker(taskQueue);
    }
    const result = await handle.result() as PipelineRunResult;
    const stats = world.emulator.stats.snapshot();
    const lines = (await readFile(fileURLToPath(result.outputs.files[0]!.uri), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { key: string; status: string; possibly_charged_usd?: number });
    const possiblyCharged = lines.reduce((sum, line) => sum + (line.possibly_charged_usd ?? 0), 0);
    const mostTasksPerItem = Math.max(0, ...Object.values(stats.tasksCreatedByMetadata));
    report(`${kind} items, worker SIGKILLed twice`, {
      items, kills, counts: result.counts, spentUsd: result.ledger.spentUsd.toFixed(4), chargedUsd: stats.chargedUsd.toFixed(4),
      possiblyChargedTwiceUsd: possiblyCharged.toFixed(4), tasksCreated: stats.tasksCreated, mostTasksPerItem, injectedFaults: stats.injectedFaults[route],
    });
    expect(kills).toHaveLength(2);
    expect(result.counts).toMatchObject({ read: items, completed: items, failed: 0 });
    expect(lines.map((line) => line.key).sort()).toEqual(Array.from({ length: items }, (_, index) => `company-${index + 1}-example`).sort());
    if (kind === 'deepresearch') {
      expect(stats.tasksCreated).toBe(items);
      expect(mostTasksPerItem).toBe(1);
    }
    // Money from the service's books: the run's ledger never shows less than the service charged.
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
  });
});
