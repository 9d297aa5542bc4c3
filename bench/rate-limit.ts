// Rate limits: a pipeline of Search items against an emulator that allows N requests per second per key
// (a token bucket holding one second's worth), once with the definition's start rate set to N and, as
// the baseline in the same process against the same emulator, once with the start rate at its maximum
// (100 per second), which leaves the service's limit to find the pipeline. Figures: items per second
// against N, and the share of search requests answered 429.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
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

/** Runs `items` Search items twice against a service limited to `perSecond` requests a second. */
export async function runRateLimitBench(server: TemporalServer, options: { perSecond?: number; items?: number } = {}): Promise<BenchRow[]> {
  const perSecond = options.perSecond ?? 10;
  const items = options.items ?? perSecond * 20;
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-bench-rate-'));
  const emulator = await startEmulator({ seed: 'bench-rate', defaultCreditsUsd: 1_000_000, rateLimit: { requestsPerSecond: perSecond, burst: perSecond } });
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
  // When each search was sent and when each successful one returned, for the rate while items flow.
  const sent: number[] = [];
  const served: number[] = [];
  const search = api.search.bind(api);
  api.search = async (request, options) => {
    sent.push(Date.now());
    const response = await search(request, options);
    served.push(Date.now());
    return response;
  };
  const taskQueue = `bench-rate-${Date.now()}`;
  const worker = await Worker.create({
    connection: server.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    workflowsPath: require.resolve('../src/workflows'),
    activities: createActivities({ api, store: new LocalArtifactStore(path.join(dir, 'store')), secrets: new InMemoryWebhookSecretStore() }),
  });
  const client = new Client({ connection: server.connection, namespace: server.namespace });
  const rows = Array.from({ length: items }, (_, index) => JSON.stringify({ id: `q${index + 1}`, topic: `rate topic ${index + 1}` })).join('\n');
  await writeFile(path.join(dir, 'items.jsonl'), `${rows}\n`);
  const searches = () => Object.values(emulator.stats.snapshot().requests.search ?? {}).reduce((sum, count) => sum + count, 0);
  const rejections = () => emulator.stats.snapshot().requests.search?.['429'] ?? 0;
  const run = async (name: string, startRate: number): Promise<RunFigures> => {
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
    sent.length = 0;
    served.length = 0;
    log(`rate limit: ${items} search items at start rate ${startRate}/s against a service allowing ${perSecond}/s…`);
    const started = Date.now();
    const result = (await client.workflow.execute('pipelineRunWorkflow', {
      taskQueue,
      workflowId: `pipeline-run/${name}/${input.runKey}`,
      args: [input],
    })) as PipelineRunResult;
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
  };
  try {
    const [limited, unlimited] = await worker.runUntil(async () => [await run('rate-limited', perSecond), await run('rate-unlimited', 100)]);
    const bench = `rate limit ${perSecond}/s, ${items} search items`;
    const share = (figures: RunFigures) => figures.rejected / Math.max(1, figures.requests);
    const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
    return [
      {
        bench,
        figure: 'searches served per second while items run (share of N)',
        measured: `${limited.servedPerSecond.toFixed(1)} (${pct(limited.servedPerSecond / perSecond)})`,
        baseline: `${unlimited.servedPerSecond.toFixed(1)} (${pct(unlimited.servedPerSecond / perSecond)}), start rate 100/s`,
        goal: '>= 90% of N',
        met: limited.servedPerSecond >= 0.9 * perSecond,
      },
      {
        bench,
        figure: 'items completed per second, start to outputs written',
        measured: `${limited.itemsPerSecond.toFixed(1)} (${limited.seconds.toFixed(1)} s)`,
        baseline: `${unlimited.itemsPerSecond.toFixed(1)} (${unlimited.seconds.toFixed(1)} s)`,
        goal: '',
      },
      {
        bench,
        figure: 'search requests answered 429',
        measured: `${pct(share(limited))} (${limited.rejected} of ${limited.requests})`,
        baseline: `${pct(share(unlimited))} (${unlimited.rejected} of ${unlimited.requests})`,
        goal: '< 5%',
        met: share(limited) < 0.05,
      },
      {
        bench,
        figure: 'items completed / failed',
        measured: `${limited.completed} / ${limited.failed}`,
        baseline: `${unlimited.completed} / ${unlimited.failed}`,
        goal: `${items} / 0`,
        met: limited.completed === items,
      },
    ];
  } finally {
    await api.close();
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
