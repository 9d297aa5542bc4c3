// What the workflow bundle costs per workflow: its size, the time and heap each new workflow spends on
// its own copy of the bundled modules (the reusable V8 context evaluates them again for every workflow it
// creates or replays, and keeps them while the workflow is cached), and the time one message check takes.
// Run: node --expose-gc bench/run.js bench/workflow-sandbox.ts
import vm from 'node:vm';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/worker';
import { checkpointAnswerProblem } from '../src/workflows/checkpoint-answers';
import { budgetRaiseProblem, parseWebhookNotice } from '../src/workflows/message-checks';
import { itemWaitingProblem, operatorSignalProblem } from '../src/workflows/pipeline-progress';
import { log, runIfEntry } from './table';

const ROUNDS = 300;
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: (message: string) => log(message), log() {} };

interface Cost {
  medianMs: number;
  p10Ms: number;
  heapKiB?: number;
}

/**
 * Evaluates the bundle once, then its workflow modules `ROUNDS` times, each time in a fresh module cache
 * as a new workflow would, and with `message` loads the message schemas as a workflow's first message does.
 * The worker injects its module cache the same way (see @temporalio/worker reusable-vm): modules loaded
 * before any workflow (the SDK's runtime) are shared, the rest belong to each workflow.
 */
function perWorkflow(code: string, message: boolean): Cost {
  const shared: Record<string, unknown> = {};
  const state: { current: Record<string, unknown> | null } = { current: null };
  const cache = new Proxy(
    {},
    {
      get: (_, key: string) => shared[key] ?? state.current?.[key],
      set: (_, key: string, value) => {
        (state.current ?? shared)[key] = value;
        return true;
      },
      has: (_, key: string) => key in shared || (state.current !== null && key in state.current),
    },
  );
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  Object.defineProperty(context, '__webpack_module_cache__', { value: cache });
  new vm.Script(code).runInContext(context);
  const load = new vm.Script('__TEMPORAL__.importWorkflows()');
  const newWorkflow = (): Record<string, unknown> => {
    state.current = {};
    load.runInContext(context);
    if (message) (state.current['./src/workflows/message-schemas.ts'] as { exports: { messageSchemas(): unknown } }).exports.messageSchemas();
    return state.current;
  };
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    newWorkflow();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const sorted = times.slice(50).sort((a, b) => a - b);
  const cost: Cost = { medianMs: sorted[Math.floor(sorted.length / 2)]!, p10Ms: sorted[Math.floor(sorted.length / 10)]! };
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return cost;
  const kept: unknown[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let round = 0; round < 100; round++) kept.push(newWorkflow());
  gc();
  return { ...cost, heapKiB: (process.memoryUsage().heapUsed - before) / 100 / 1024 };
}

const costText = (cost: Cost): string =>
  `${cost.p10Ms.toFixed(2)} ms (p10), ${cost.medianMs.toFixed(2)} ms (median, with GC)${cost.heapKiB === undefined ? '' : `, ${cost.heapKiB.toFixed(0)} KiB heap kept while cached`}`;

function microseconds(check: () => unknown): number {
  for (let i = 0; i < 20_000; i++) check();
  const started = process.hrtime.bigint();
  for (let i = 0; i < 50_000; i++) check();
  return Number(process.hrtime.bigint() - started) / 50_000 / 1000;
}

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: quiet,
  });
  const map = code.indexOf('//# sourceMappingURL=');
  const zodModules = new Set(code.slice(0, map).match(/"\.\/node_modules\/zod\/[^"]+"/g) ?? []);
  const idle = perWorkflow(code, false);
  const messaged = perWorkflow(code, true);
  const interaction = { interaction_id: 'int_1', type: 'planning_questions' as const, created_at: 0, timeout_ms: 300_000 };
  const answer = { interactionId: 'int_1', response: { answers: [{ question: 'Which region?', answer: 'EU' }] } };
  const lines = [
    `workflow bundle: ${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB (${(Buffer.byteLength(code.slice(0, map)) / 1024).toFixed(0)} KiB of code, the rest its inline source map); zod modules: ${zodModules.size}`,
    `per new workflow, before any message: ${costText(idle)}`,
    `per new workflow, once a message came (zod and the schemas loaded): ${costText(messaged)}`,
    `message checks (steady, µs per call): checkpoint answer ${microseconds(() => checkpointAnswerProblem(interaction, answer)).toFixed(1)}` +
      `, webhookReceived ${microseconds(() => parseWebhookNotice({ deepresearchId: 'dr_1', status: 'completed' })).toFixed(1)}` +
      `, raiseBudget ${microseconds(() => budgetRaiseProblem({ budgetUsd: 1, spentUsd: 0, reservedUsd: 0 }, { addUsd: 2 })).toFixed(1)}` +
      `, pipelineItemWaiting ${microseconds(() => itemWaitingProblem({ item: 'a', waiting: 'checkpoint' })).toFixed(1)}` +
      `, pausePipeline ${microseconds(() => operatorSignalProblem({ reason: 'lunch' })).toFixed(1)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

runIfEntry(module, main);
