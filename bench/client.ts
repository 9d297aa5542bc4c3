/**
 * Throughput of `ResearchClient.getTask` (transport + zod validation) against bare undici on the same
 * loopback server: alternating rounds, same concurrency and duration. Run with `npm run bench:client`.
 * Optional arguments: rounds per side, milliseconds per round, requests in flight.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { ResearchClient } from '../src/api';

const ROUNDS = Number(process.argv[3] ?? 8);
const ROUND_MS = Number(process.argv[4] ?? 300);
const CONCURRENCY = Number(process.argv[5] ?? 32);
const WARMUP_MS = 500;
const TASK_ID = 'dr_01JBENCH0000000000000000';

/** A completed task of about 2 KB, shaped like the service's status response. */
function statusBody(): string {
  const sources = Array.from({ length: 8 }, (_, index) => ({
    title: `Source ${index}: quarterly filings and market commentary`,
    url: `https://example.com/reports/2025/q${(index % 4) + 1}/article-${index}`,
  }));
  return JSON.stringify({
    deepresearch_id: TASK_ID,
    status: 'completed',
    query: 'Summarise the competitive landscape of European battery manufacturers in 2025',
    mode: 'standard',
    created_at: '2025-03-01T10:00:00.000Z',
    completed_at: '2025-03-01T10:14:12.000Z',
    output_formats: ['markdown'],
    public: false,
    output_type: 'markdown',
    output: `# European battery manufacturers\n\n${'Capacity grew while prices fell; several plants were delayed. '.repeat(12)}`,
    sources,
    cost: 0.5,
    cost_breakdown: { task: 0.5 },
    tools: { code_execution: false, screenshots: false, browser_use: false, charts: false },
    deliverables: [
      {
        id: 'asset_1',
        request: 'A CSV of the manufacturers',
        type: 'csv',
        status: 'completed',
        title: 'Manufacturers',
        created_at: 1740823652000,
        url: `https://api.example.com/v1/deepresearch/tasks/${TASK_ID}/assets/asset_1`,
      },
    ],
    metadata: { pipeline: 'battery-scan', item: 'eu' },
  });
}

async function startServer(body: string): Promise<{ server: Server; baseUrl: string }> {
  const payload = Buffer.from(body);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length });
    res.end(payload);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}/v1` };
}

/** One round's figures: completed calls per second, and CPU microseconds per call (client and server alike). */
interface Round {
  rate: number;
  cpuMicros: number;
}

/** Keeps `CONCURRENCY` calls in flight for `durationMs`. */
async function measure(call: () => Promise<unknown>, durationMs: number): Promise<Round> {
  const deadline = performance.now() + durationMs;
  const started = performance.now();
  const cpu = process.cpuUsage();
  let completed = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await call();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return { rate: completed / ((performance.now() - started) / 1000), cpuMicros: (used.user + used.system) / completed };
}

async function main(): Promise<void> {
  const { server, baseUrl } = await startServer(statusBody());
  const agentOptions = { keepAliveTimeout: 30_000, connections: 64, pipelining: 1 };
  const bareAgent = new Agent(agentOptions);
  const clientAgent = new Agent(agentOptions);
  const client = new ResearchClient({ apiKey: 'bench-key', baseUrl, dispatcher: clientAgent });
  const statusUrl = new URL(`${baseUrl}/deepresearch/tasks/${TASK_ID}/status`);
  const statusOrigin = statusUrl.origin;
  const statusPath = statusUrl.pathname;

  const headers = { 'x-api-key': 'bench-key', accept: 'application/json' };
  const readJson = async (response: { statusCode: number; body: { json(): Promise<unknown> } }) => {
    if (response.statusCode !== 200) throw new Error(`bare request got ${response.statusCode}`);
    return response.body.json();
  };
  // Two ways of using undici bare: its documented request(url) API, and the dispatcher's own request
  // with origin and path split beforehand (what the client's transport does).
  const variants: Record<string, () => Promise<unknown>> = {
    'bare undici request(url) + JSON': async () => readJson(await request(statusUrl, { method: 'GET', headers, dispatcher: bareAgent })),
    'bare undici dispatcher.request + JSON': async () => readJson(await bareAgent.request({ origin: statusOrigin, path: statusPath, method: 'GET', headers })),
    'ResearchClient.getTask (+ zod)': () => client.getTask(TASK_ID),
  };
  const names = Object.keys(variants);

  // Warm up every path (connections, JIT, zod's compiled parsers) before timing anything.
  for (const name of names) await measure(variants[name]!, WARMUP_MS);
  const results: Record<string, Round[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) results[name]!.push(await measure(variants[name]!, ROUND_MS));
  }

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const row = (rounds: Round[]) => ({
    'req/s (median)': Math.round(median(rounds.map((each) => each.rate))),
    'CPU µs/req': Number(median(rounds.map((each) => each.cpuMicros)).toFixed(1)),
    'req/s per round': rounds.map((each) => Math.round(each.rate)).join(' '),
  });
  console.log(`getTask on loopback: ${ROUNDS} alternating rounds of ${ROUND_MS} ms, ${CONCURRENCY} in flight, ${Buffer.byteLength(statusBody())}-byte body`);
  console.table(Object.fromEntries(names.map((name) => [name, row(results[name]!)])));
  // Each client round is compared with the bare rounds of the same cycle; the median resists a stray GC or scheduler hiccup.
  const clientRounds = results['ResearchClient.getTask (+ zod)']!;
  for (const name of names.slice(0, 2)) {
    const ratio = median(clientRounds.map((each, round) => each.rate / results[name]![round]!.rate));
    console.log(`ratio client / ${name}: ${ratio.toFixed(3)}; goal >= 0.9: ${ratio >= 0.9 ? 'met' : 'NOT met'}`);
  }

  await client.close();
  await Promise.all([bareAgent.close(), clientAgent.close()]);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
