import { request as httpRequest } from 'node:http';
import { ResearchClient } from '../../src/api/client';
import type { EmulatorOptions } from '../../src/emulator/options';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';

/** A raw answer: status, lowercased headers and the parsed JSON body (or the text when it is not JSON). */
export interface RawAnswer {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

/** Sends one request with `fetch`, for bodies or headers the typed client refuses to send. */
export async function rawCall(
  emulator: RunningEmulator,
  method: string,
  path: string,
  init: { body?: unknown; apiKey?: string | null; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const apiKey = init.apiKey === undefined ? emulator.defaultApiKey : init.apiKey;
  const headers: Record<string, string> = { ...(apiKey === null ? {} : { 'x-api-key': apiKey }), ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const base = path.startsWith('/_emulator') ? emulator.origin : emulator.url;
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON (an SSE stream or an empty body): keep the text.
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** Sends a request with `node:http`, which keeps header names as written (for case checks). */
export function nodeRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end(body);
  });
}

/** Starts an emulator for one test and a client on its default key; `close` stops both. */
export async function startWithClient(options: EmulatorOptions = {}): Promise<{ emulator: RunningEmulator; client: ResearchClient; close(): Promise<void> }> {
  const emulator = await startEmulator({ seed: 42, streamDelayMs: 1, ...options });
  const client = new ResearchClient({ apiKey: emulator.defaultApiKey, baseUrl: emulator.url });
  return {
    emulator,
    client,
    close: async () => {
      await client.close();
      await emulator.close();
    },
  };
}

/** A second client of the same emulator with another key. */
export function clientWithKey(emulator: RunningEmulator, apiKey: string): ResearchClient {
  return new ResearchClient({ apiKey, baseUrl: emulator.url });
}

/** Runs `promise`, expecting it to reject, and returns the error (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

/** Keys used by the multi-account tests. */
export const KEYS = {
  full: 'key_full_0000001',
  noInference: 'key_noinfer_0001',
  free: 'key_freeplan_001',
  poor: 'key_poor_0000001',
} as const;

/** Accounts covering every permission and plan combination the tests need. */
export const TEST_ACCOUNTS: NonNullable<EmulatorOptions['accounts']> = [
  { key: KEYS.full, organization: 'org_a', creditsUsd: 50, permissions: ['inference', 'increased_max_results'], subscription: true },
  { key: KEYS.noInference, organization: 'org_a', creditsUsd: 50, permissions: ['increased_max_results'], subscription: true },
  { key: KEYS.free, organization: 'org_b', creditsUsd: 50, permissions: ['inference'], subscription: false },
  { key: KEYS.poor, organization: 'org_c', creditsUsd: 0, permissions: ['inference', 'increased_max_results'], subscription: true },
];

/**
 * Starts an emulator with a client before each test of the enclosing block and closes both after it;
 * `take` receives them (a test file keeps them in its own variables). `options` may be a factory, for
 * a fresh clock per test.
 */
export function useEmulator(
  options: EmulatorOptions | (() => EmulatorOptions),
  take: (started: { emulator: RunningEmulator; client: ResearchClient }) => void,
): void {
  let close: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const started = await startWithClient(typeof options === 'function' ? options() : options);
    close = started.close;
    take(started);
  });
  afterEach(async () => {
    await close?.();
    close = undefined;
  });
}
