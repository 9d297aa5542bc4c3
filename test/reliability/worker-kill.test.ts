import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipelineRunStateQuery } from '../../src/workflows/definitions';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { describeScenarios } from '../support/scenario-env';
import { testServer } from '../support/server/test-server';
import { companies, pipelineInput } from '../scenarios/pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';

// `rp worker` as its own process, killed with SIGKILL (no shutdown, no grace: as a node dying) twice
// per run while paid calls are in flight, and replaced by a fresh process each time.
const ROOT = path.resolve(__dirname, '..', '..');
const BUILD = path.join(ROOT, '.test-build');
const report = (title: string, figures: Record<string, unknown>) =>
  process.stdout.write(
    `\n[reliability] ${title}\n${Object.entries(figures)
      .map(([name, value]) => `  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join('\n')}\n`,
  );

describeScenarios('reliability: worker processes killed with SIGKILL mid-call', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let dir: string;
  const workers: ChildProcess[] = [];
  beforeAll(() => {
    // The worker as users run it: the compiled CLI (`rp worker`), built once for this suite.
    const built = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD], {
      cwd: ROOT,
      encoding: 'utf8',
    });
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

  function startWorker(taskQueue: string, apiTimeoutMs = 2_000): ChildProcess {
    const server = testServer();
    if (!server.available) throw new Error('no test server');
    const worker = spawn(process.execPath, [path.join(BUILD, 'cli.js'), 'worker'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: server.namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        RESEARCH_API_BASE_URL: world!.emulator.url,
        RESEARCH_API_KEY: world!.emulator.defaultApiKey,
        RESEARCH_API_TIMEOUT_MS: String(apiTimeoutMs),
        ARTIFACT_DIR: path.join(dir, 'artifacts'),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // What the worker last wrote (its warnings and errors), and how it ended: a wait that times out says both.
    let output = '';
    let ended = '';
    const keep = (chunk: string) => (output = (output + chunk).slice(-2_000));
    worker.stdout.setEncoding('utf8').on('data', keep);
    worker.stderr.setEncoding('utf8').on('data', keep);
    worker.once(
      'exit',
      (code, signal) => (ended = `worker ${worker.pid} ended (${signal ?? `exit code ${code}`}); its output ended: ${output || '(nothing)'}`),
    );
    lastWorker = () => ended || `worker ${worker.pid} running; its output ended: ${output || '(nothing)'}`;
    workers.push(worker);
    return worker;
  }
  /** The state of the worker started last, for a wait that timed out. */
  let lastWorker = (): string => 'no worker started';

  /** Waits until `predicate` holds, checking every 50 ms (real time), or fails naming what it waited for. */
  async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${lastWorker()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it.each([
    ['deepresearch', 'deepresearch.create', 'deepresearch:\n    query: "Profile {{ item.name }}"\n    mode: fast'],
    ['answer', 'answer', 'answer:\n    query: "Headcount of {{ item.name }}"\n    data_max_price: 0.05'],
    ['search', 'search', 'search:\n    query: "{{ item.name }} news"\n    max_num_results: 2\n    max_price: 1\n    response_length: 200'],
    ['contents', 'contents', 'contents:\n    urls: ["https://{{ item.domain }}/about"]\n    response_length: short'],
  ] as const)(
    '%s items: every item once in the outputs, nothing lost, no task paid twice, every possible double charge counted, through two SIGKILLs, 5xx, dropped answers and 429 bursts',
    async (kind, route, step) => {
      const env = getEnv();
      const items = 12;
      world = await makeWorld(env, {
        emulator: {
          defaultCreditsUsd: 100,
          faults: { [route]: { latencyMs: [200, 600], errorRate: 0.1, dropAfterProcessingRate: 0.1, rateLimitBurst: { every: 7, count: 2 } } },
        },
      });
      const taskQueue = `kill-${kind}-${Date.now()}`;
      const input = await pipelineInput(
        `
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
`,
        world,
        { runKey: 'twice' },
      );
      let worker = startWorker(taskQueue);
      const handle = await env.client.workflow.start('pipelineRunWorkflow', { taskQueue, workflowId: `pipeline-run/killed-${kind}/twice`, args: [input] });
      // Progress and calls in flight are read from the service's side: a query to a run whose worker was
      // just killed waits for Temporal to notice, which is not what this suite measures.
      const answered = () =>
        Object.entries(world!.emulator.stats.snapshot().requests[route] ?? {})
          .filter(([status]) => status.startsWith('2'))
          .reduce((sum, [, count]) => sum + count, 0);
      const inFlight = () => world!.emulator.stats.snapshot().injectedFaults[route]?.latency ?? 0;
      const kills: string[] = [];
      for (const share of [0.25, 0.6]) {
        await until(() => answered() >= Math.ceil(items * share), `${share * 100} % of the calls answered`, 120_000);
        const calls = inFlight();
        // A new call starts when an item ends and frees its slot (for DeepResearch, once its task is seen finished).
        await until(() => inFlight() > calls, 'a paid call in flight', 120_000);
        worker.kill('SIGKILL');
        kills.push(`after ${answered()} of ${items} calls answered`);
        worker = startWorker(taskQueue);
      }
      const result = (await handle.result()) as PipelineRunResult;
      const stats = world.emulator.stats.snapshot();
      const lines = (await readFile(fileURLToPath(result.outputs.files[0]!.uri), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { key: string; status: string; possibly_charged_usd?: number });
      const possiblyCharged = lines.reduce((sum, line) => sum + (line.possibly_charged_usd ?? 0), 0);
      const mostTasksPerItem = Math.max(0, ...Object.values(stats.tasksCreatedByMetadata));
      report(`${kind} items, worker SIGKILLed twice`, {
        items,
        kills,
        counts: result.counts,
        spentUsd: result.ledger.spentUsd.toFixed(4),
        chargedUsd: stats.chargedUsd.toFixed(4),
        possiblyChargedTwiceUsd: possiblyCharged.toFixed(4),
        tasksCreated: stats.tasksCreated,
        mostTasksPerItem,
        injectedFaults: stats.injectedFaults[route],
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
    },
  );

  it('answer items and an answer synthesis: calls slower than the heartbeat timeout are made once, and SIGKILLs during slow item calls and during the fan-in lose nothing and count every double charge', async () => {
    const env = getEnv();
    const items = 9;
    world = await makeWorld(env, {
      emulator: {
        defaultCreditsUsd: 100,
        // Every fourth Answer call takes 25 s: longer than the 20 s heartbeat timeout of an item's activity;
        // together with 5xx, answers dropped after they were charged and 429 bursts.
        faults: {
          answer: {
            latencyMs: [300, 600],
            slowCalls: { every: 4, ms: 25_000 },
            errorRate: 0.1,
            dropAfterProcessingRate: 0.1,
            rateLimitBurst: { every: 7, count: 2 },
          },
        },
      },
    });
    const taskQueue = `kill-fan-in-${Date.now()}`;
    const input = await pipelineInput(
      `
name: killed-fan-in
input:
  items:
${companies(items)}
  key: "{{ item.domain | slug }}"
step:
  answer:
    query: "Headcount of {{ item.name }}"
    data_max_price: 0.05
concurrency: 3
start_rate_per_second: 50
retries: 4
budget_usd: 20
synthesis:
  answer:
    query: "Compare the companies for {{ pipeline.name }}"
    data_max_price: 0.05
`,
      world,
      { runKey: 'slow' },
    );
    let worker = startWorker(taskQueue, 40_000);
    const handle = await env.client.workflow.start('pipelineRunWorkflow', { taskQueue, workflowId: 'pipeline-run/killed-fan-in/slow', args: [input] });
    const route = 'answer';
    const faults = () => world!.emulator.stats.snapshot().injectedFaults[route] ?? {};
    // Every call passes the injected latency first, so it counts the calls received; those without an answer are in flight.
    const received = () => faults().latency ?? 0;
    // Calls received for a reason other than a fault answered before: a 5xx, a 429 or a dropped answer each explain one call more.
    const firstCalls = () => received() - (faults().error ?? 0) - (faults().rateLimitBurst ?? 0) - (faults().dropped ?? 0);
    const answered = () => Object.values(world!.emulator.stats.snapshot().requests[route] ?? {}).reduce((sum, count) => sum + count, 0);
    const kills: string[] = [];

    // Both slow item calls under way: 22 s later they are past the heartbeat timeout and still unanswered.
    await until(() => firstCalls() >= items && (faults().slow ?? 0) >= 2, "every item's call sent, two of them slow", 120_000);
    const slowSince = Date.now();
    await until(() => Date.now() - slowSince >= 22_000, 'the slow calls to pass the heartbeat timeout', 30_000);
    // No call was sent again beside a slow one: the service received one call per item, apart from faults.
    const receivedBeforeKills = { calls: received(), explainedByFaults: received() - firstCalls() };
    expect(firstCalls()).toBe(items);
    let lostToKills = received() - answered();
    worker.kill('SIGKILL');
    kills.push(`during ${lostToKills} slow item calls, after ${answered()} answers`);
    worker = startWorker(taskQueue, 40_000);
    // Second kill: the fan-in's synthesis call in flight (the run's own query says it is synthesising).
    await until(
      async () =>
        (
          await env.client.workflow
            .getHandle(handle.workflowId)
            .query(pipelineRunStateQuery)
            .catch(() => undefined)
        )?.phase === 'synthesis',
      'the run to reach its synthesis',
      240_000,
    );
    await until(() => received() > answered(), 'the synthesis call in flight', 60_000);
    lostToKills += received() - answered();
    worker.kill('SIGKILL');
    kills.push(`during the synthesis call, after ${answered()} answers`);
    startWorker(taskQueue, 40_000);

    const result = (await handle.result()) as PipelineRunResult;
    const stats = world.emulator.stats.snapshot();
    const lines = (await readFile(fileURLToPath(result.outputs.files[0]!.uri), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; status: string; possibly_charged_usd?: number; item: { name: string } });
    // The service's books per item: how many Answers it charged for each query.
    const charges = new Map<string, number>();
    for (const charge of world.emulator.accounts.chargeLog().filter((entry) => entry.reason === 'answer'))
      charges.set(charge.subject ?? '?', (charges.get(charge.subject ?? '?') ?? 0) + 1);
    const chargedTwice = lines.filter((line) => (charges.get(`Headcount of ${line.item.name}`) ?? 0) > 1);
    report('answer items with an answer synthesis, calls slower than the heartbeat timeout, worker SIGKILLed during slow item calls and during the fan-in', {
      items,
      kills,
      receivedBeforeKills,
      callsCutByKills: lostToKills,
      counts: result.counts,
      answersCharged: [...charges.values()].reduce((sum, count) => sum + count, 0),
      itemsChargedTwice: chargedTwice.map((line) => line.key),
      possiblyChargedTwiceUsd: lines.reduce((sum, line) => sum + (line.possibly_charged_usd ?? 0), 0).toFixed(4),
      spentUsd: result.ledger.spentUsd.toFixed(4),
      chargedUsd: stats.chargedUsd.toFixed(4),
      injectedFaults: faults(),
      synthesis: result.outputs.synthesis ? 'written' : 'missing',
    });
    expect(result.counts).toMatchObject({ read: items, completed: items, failed: 0 });
    expect(lines.map((line) => line.key).sort()).toEqual(Array.from({ length: items }, (_, index) => `company-${index + 1}-example`).sort());
    expect(result.outputs.synthesis).toBeDefined();
    // Each item and the synthesis answered once, plus one more for each call a kill cut off or whose answer was dropped.
    const handled = Object.entries(stats.requests[route] ?? {})
      .filter(([status]) => status.startsWith('2'))
      .reduce((sum, [, count]) => sum + count, 0);
    expect(handled).toBeLessThanOrEqual(items + 1 + lostToKills + (faults().dropped ?? 0));
    // Every item the service charged twice says so in the outputs, and the ledger never shows less than was charged.
    for (const line of chargedTwice)
      expect({ key: line.key, possiblyCharged: (line.possibly_charged_usd ?? 0) > 0 }).toEqual({ key: line.key, possiblyCharged: true });
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
  });
});
