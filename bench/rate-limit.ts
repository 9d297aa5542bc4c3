// Rate limits: a pipeline of Search items against an emulator that allows N requests per second per key
// (a token bucket holding one second's worth). Measured: the worker's client paced at N (what
// RESEARCH_API_REQUESTS_PER_SECOND=N sets) with the definition's start rate at N too; the baseline, in the
// same process against the same emulator: the start rate at N alone (the client unpaced), which leaves
// timer jitter to bunch calls into 429s. A third run paces the client alone (start rate 100 per second).
// Figures: searches served per second against N, and the share of search requests answered 429.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { ResearchClient } from '../src/api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../src/activities';
import { startEmulator } from '../src/emulator/server';
import { itemSource, parsePipelineDefinition, resolveParameters } from '../src/pipelines';
import { type TemporalServer } from '../src/temporal/server';
import type { PipelineRunInput, PipelineRunResult } from '../src/domain/pipeline-types';
import { log, positiveArg, printTable, runIfEntry, withBenchServer, type BenchRow } from './table';

interface RunFigures {
  seconds: number;
  /** Successful searches per second from the first search request to the last successful one. */
  servedPerSecond: number;
  completed: number;
  failed: number;
  itemsPerSecond: number;
  requests: number;
  rejected: number;
}

/** Runs `items` Search items three times against a service limited to `perSecond` requests a second. */
export async function runRateLimitBench(server: TemporalServer, options: { perSecond?: number; items?: number } = {}): Promise<BenchRow[]> {
  const perSecond = options.perSecond ?? 10;
  const items = options.items ?? perSecond * 20;
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-bench-rate-'));
  const emulator = await startEmulator({ seed: 'bench-rate', defaultCreditsUsd: 1_000_000, rateLimit: { requestsPerSecond: perSecond, burst: perSecond } });
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: log, log() {} },
  });
  const client = new Client({ connection: server.connection, namespace: server.namespace });
  const rows = Array.from({ length: items }, (_, index) => JSON.stringify({ id: `q${index + 1}`, topic: `rate topic ${index + 1}` })).join('\n');
  await writeFile(path.join(dir, 'items.jsonl'), `${rows}\n`);
  const searches = () => Object.values(emulator.stats.snapshot().requests.search ?? {}).reduce((sum, count) => sum + count, 0);
  const rejections = () => emulator.stats.snapshot().requests.search?.['429'] ?? 0;
  const run = async (name: string, startRate: number, clientRate: number | undefined): Promise<RunFigures> => {
    // The worker's client, as the worker makes it from its settings: paced at `clientRate`, or not at all.
    const api = new ResearchClient({
      baseUrl: emulator.url,
      apiKey: emulator.defaultApiKey,
      ...(clientRate !== undefined ? { requestsPerSecond: clientRate } : {}),
    });
    // When each search was sent and when each successful one returned, for the rate while items flow.
    const sent: number[] = [];
    const served: number[] = [];
    const search = api.search.bind(api);
    api.search = async (request, callOptions) => {
      sent.push(Date.now());
      const response = await search(request, callOptions);
      served.push(Date.now());
      return response;
    };
    const taskQueue = `bench-rate-${name}-${Date.now()}`;
    const worker = await Worker.create({
      connection: server.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      workflowBundle: { code },
      activities: createActivities({ api, store: new LocalArtifactStore(path.join(dir, 'store')), secrets: new InMemoryWebhookSecretStore() }),
    });
    const yaml = `name: ${name}\ninput:\n  jsonl: items.jsonl\n  key: "{{ item.id }}"\nstep:\n  search:\n    query: "{{ item.topic }}"\n    search_type: web\n    max_num_results: 2\n    max_price: 1\n    response_length: 200\nconcurrency: ${perSecond * 3}\nstart_rate_per_second: ${startRate}\nbudget_usd: 100000\nretries: 2\n`;
    const file = path.join(dir, `${name}.yaml`);
    await writeFile(file, yaml);
    const loaded = parsePipelineDefinition(yaml, file);
    const input: PipelineRunInput = {
      definition: loaded.definition,
      source: itemSource(loaded),
      params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
      runKey: `bench-${Date.now()}`,
    };
    // Let the service's bucket fill again between runs, so each starts from the same place.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [requestsBefore, rejectedBefore] = [searches(), rejections()];
    log(
      `rate limit: ${items} search items at start rate ${startRate}/s, client ${clientRate !== undefined ? `paced at ${clientRate}/s` : 'unpaced'}, against a service allowing ${perSecond}/s…`,
    );
    const started = Date.now();
    try {
      const result = (await worker.runUntil(
        client.workflow.execute('pipelineRunWorkflow', {
          taskQueue,
          workflowId: `pipeline-run/${name}/${input.runKey}`,
          args: [input],
        }),
      )) as PipelineRunResult;
      const seconds = (Date.now() - started) / 1000;
      const span = (Math.max(...served) - Math.min(...sent)) / 1000;
      return {
        seconds,
        servedPerSecond: served.length / span,
        completed: result.counts.completed,
        failed: result.counts.failed,
        itemsPerSecond: result.counts.completed / seconds,
        requests: searches() - requestsBefore,
        rejected: rejections() - rejectedBefore,
      };
    } finally {
      await api.close();
    }
  };
  try {
    const paced = await run('rate-paced', perSecond, perSecond);
    const startRateOnly = await run('rate-start-only', perSecond, undefined);
    const clientOnly = await run('rate-client-only', 100, perSecond);
    const bench = `rate limit ${perSecond}/s, ${items} search items`;
    const share = (figures: RunFigures) => figures.rejected / Math.max(1, figures.requests);
    const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
    const servedText = (figures: RunFigures) => `${figures.servedPerSecond.toFixed(1)} (${pct(figures.servedPerSecond / perSecond)})`;
    const rejectedText = (figures: RunFigures) => `${pct(share(figures))} (${figures.rejected} of ${figures.requests})`;
    const baseline = 'start rate N, client unpaced: ';
    return [
      {
        bench,
        figure: 'searches served per second while items run (share of N); client paced at N, start rate N',
        measured: servedText(paced),
        baseline: `${baseline}${servedText(startRateOnly)}`,
        goal: '>= 95% of N',
        met: paced.servedPerSecond >= 0.95 * perSecond,
      },
      {
        bench,
        figure: 'items completed per second, start to outputs written',
        measured: `${paced.itemsPerSecond.toFixed(1)} (${paced.seconds.toFixed(1)} s)`,
        baseline: `${baseline}${startRateOnly.itemsPerSecond.toFixed(1)} (${startRateOnly.seconds.toFixed(1)} s)`,
        goal: '',
      },
      {
        bench,
        figure: 'search requests answered 429',
        measured: rejectedText(paced),
        baseline: `${baseline}${rejectedText(startRateOnly)}`,
        goal: '< 2%',
        met: share(paced) < 0.02,
      },
      {
        bench,
        figure: 'items completed / failed',
        measured: `${paced.completed} / ${paced.failed}`,
        baseline: `${baseline}${startRateOnly.completed} / ${startRateOnly.failed}`,
        goal: `${items} / 0`,
        met: paced.completed === items,
      },
      {
        bench,
        figure: 'client paced at N alone (start rate 100/s): served (share of N); 429s; completed / failed',
        measured: `${servedText(clientOnly)}; ${rejectedText(clientOnly)}; ${clientOnly.completed} / ${clientOnly.failed}`,
        baseline: '',
        goal: '>= 95%; < 2%; all',
        met: clientOnly.servedPerSecond >= 0.95 * perSecond && share(clientOnly) < 0.02 && clientOnly.completed === items,
      },
    ];
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runIfEntry(module, async () => {
  const perSecond = positiveArg(0, 'requests per second', 10, true);
  const items = positiveArg(1, 'items', perSecond * 20, true);
  await withBenchServer({ preciseTimers: false }, async (server) => {
    printTable(await runRateLimitBench(server, { perSecond, items }));
  });
});
