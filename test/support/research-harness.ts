import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResearchClient } from '../../src/api/client';
import type { ResearchOptionsInput } from '../../src/emulator/research';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import type { EmulatorOptions } from '../../src/emulator/options';
import { FakeClock } from './fake-clock';

/** An emulator on loopback driven by a fake clock, with a client for its default key. */
export interface ResearchHarness {
  emulator: RunningEmulator;
  clock: FakeClock;
  client: ResearchClient;
  /** Moves emulator time forward by `ms`, firing due transitions (and awaiting webhook attempts they start). */
  advance(ms: number): Promise<void>;
  /** A raw call, for requests the typed client would refuse to send. */
  call(method: string, path: string, body?: unknown, apiKey?: string): Promise<{ status: number; json: unknown }>;
  /** Raw bytes of a URL the emulator handed out (asset links). */
  download(url: string, apiKey?: string): Promise<{ status: number; contentType: string; bytes: Buffer }>;
  close(): Promise<void>;
}

const MINUTE = 60_000;

/** Starts an emulator with research `options` (no jitter unless given) and extra server options. */
export async function startResearchHarness(
  options: ResearchOptionsInput = {},
  server: Omit<EmulatorOptions, 'clock' | 'research'> = {},
): Promise<ResearchHarness> {
  const clock = new FakeClock();
  const emulator = await startEmulator({ seed: 7, ...server, clock, research: { durationJitter: 0, ...options } });
  const client = new ResearchClient({ apiKey: emulator.defaultApiKey, baseUrl: emulator.url });
  const call = async (method: string, path: string, body?: unknown, apiKey = emulator.defaultApiKey) => {
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const download = async (url: string, apiKey = emulator.defaultApiKey) => {
    const response = await fetch(url, { headers: { 'x-api-key': apiKey } });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
  };
  return {
    emulator,
    clock,
    client,
    advance: (ms) => clock.advanceTo(clock.now() + ms),
    call,
    download,
    close: async () => {
      await client.close();
      await emulator.close();
    },
  };
}

/** Minutes in milliseconds, for readable test timings. */
export const minutes = (count: number): number => count * MINUTE;

/** One request a webhook receiver got, with the exact bytes of its body. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: Record<string, unknown>;
}

/** A loopback HTTP server that records webhooks and answers each with the next scripted status (then 200). */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` webhooks have arrived (rejects after `timeoutMs` of real time). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startWebhookReceiver(statuses: number[] = []): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const script = [...statuses];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: request.headers, raw, json: JSON.parse(raw.toString('utf8')) });
      response.writeHead(script.shift() ?? 200).end();
      for (const waiter of waiters.filter((item) => received.length >= item.count)) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: string | AddressInfo | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('webhook receiver has no TCP port');
  const { port } = address;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor(count, timeoutMs = 5_000) {
      if (received.length >= count) return Promise.resolve(received.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} webhooks, got ${received.length}`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received.slice());
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A JSON value checked to be an object. */
export function asRecord(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`expected a JSON object, got ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value));
}

/** A string field of a JSON body (throws naming what was there instead). */
export function textField(json: unknown, name: string): string {
  const value = asRecord(json)[name];
  if (typeof value !== 'string') throw new Error(`expected "${name}" to be a string in ${JSON.stringify(json)}`);
  return value;
}
