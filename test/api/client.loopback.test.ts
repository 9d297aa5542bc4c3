import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { ResearchApiError, ResearchClient, type AnswerEvent } from '../../src/api';

const API_KEY = 'rk_loopback_7c1d';
const CREATED_AT = '2025-03-01T10:00:00.000Z';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void | Promise<void>;

let server: Server;
let client: ResearchClient;
/** Routes of the current test, by `METHOD /path`. */
let routes: Record<string, Handler> = {};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const handler = routes[`${request.method} ${request.url}`];
      if (!handler) {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: false, error: `no route ${request.method} ${request.url}` }));
        return;
      }
      void Promise.resolve(handler(request, Buffer.concat(chunks).toString('utf8'), response)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // No dispatcher given: the client's own keep-alive pool is what runs here.
  client = new ResearchClient({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 5_000 });
});

afterEach(() => {
  routes = {};
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Writes `text` a few bytes at a time with pauses, as a slow proxy would pass it on. */
async function trickle(response: ServerResponse, text: string, size = 7): Promise<void> {
  for (let start = 0; start < text.length; start += size) {
    response.write(text.slice(start, start + size));
    await pause(1);
  }
}

/** A promise and the function that settles it, to hold the server until the test says so. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Fails instead of hanging when `promise` does not settle in time. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const sse = (payload: unknown) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
const searchResultsEvent = { search_results: [{ title: 'Battery plants', url: 'https://a.example', content: 'Gigafactories' }] };
const contentEvent = (text: string) => ({ choices: [{ delta: { role: 'assistant', content: text }, index: 0 }] });
const metadataEvent = { success: true, tx_id: 'ai_tx_1', cost: { total_deduction_dollars: 0.12, search_deduction_dollars: 0.02, ai_deduction_dollars: 0.1 } };

describe('tasks over real HTTP', () => {
  test('creates a task and reads its status', async () => {
    const seen: Array<{ key: string | undefined; body: string }> = [];
    routes['POST /v1/deepresearch/tasks'] = (request, body, response) => {
      seen.push({ key: request.headers['x-api-key'] as string | undefined, body });
      json(response, 200, { deepresearch_id: 'dr_1', status: 'running', mode: 'fast', created_at: CREATED_AT });
    };
    routes['GET /v1/deepresearch/tasks/dr_1/status'] = (request, _body, response) => {
      seen.push({ key: request.headers['x-api-key'] as string | undefined, body: '' });
      json(response, 200, {
        deepresearch_id: 'dr_1',
        status: 'completed',
        query: 'EU battery makers',
        mode: 'fast',
        created_at: CREATED_AT,
        output_type: 'markdown',
        output: '# Report',
      });
    };

    const created = await client.createTask({ input: 'EU battery makers', model: 'fast' });
    const task = await client.getTask(created.deepresearch_id);

    expect(created).toMatchObject({ deepresearch_id: 'dr_1', status: 'running' });
    expect(task).toMatchObject({ status: 'completed', output: '# Report' });
    expect(seen.map((call) => call.key)).toEqual([API_KEY, API_KEY]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ query: 'EU battery makers', mode: 'fast' });
  });

  test('a 429 carries Retry-After as milliseconds and is retryable', async () => {
    routes['GET /v1/deepresearch/tasks/dr_1/status'] = (_request, _body, response) => {
      json(response, 429, { success: false, error: 'rate limited' }, { 'retry-after': '3' });
    };
    const error = await client.getTask('dr_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ kind: 'http', status: 429, retryable: true, retryAfterMs: 3000, serviceMessage: 'rate limited', isRateLimited: true });
  });

  test('a connection reset in the middle of a response is a retryable network failure', async () => {
    routes['GET /v1/deepresearch/tasks/dr_1/status'] = async (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '4000' });
      response.write('{"deepresearch_id":"dr_1","status":"runn');
      await pause(5);
      response.socket?.destroy();
    };
    const error = await client.getTask('dr_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ kind: 'network', retryable: true, path: '/v1/deepresearch/tasks/dr_1/status' });
    expect((error as ResearchApiError).status).toBeUndefined();
  });

  test('the next call after a reset succeeds on a fresh connection', async () => {
    routes['GET /v1/datasources/categories'] = (_request, _body, response) => {
      json(response, 200, { success: true, categories: [{ id: 'markets', name: 'Markets', description: 'Prices', dataset_count: 7 }] });
    };
    await expect(client.listDatasourceCategories()).resolves.toHaveLength(1);
  });
});

describe('the Answer stream over real HTTP', () => {
  test('yields each event as it arrives, before the server has written the rest', async () => {
    const rest = gate();
    let wroteRest = false;
    routes['POST /v1/answer'] = async (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      await trickle(response, sse(searchResultsEvent));
      await rest.opened;
      wroteRest = true;
      for (const word of ['Three ', 'plants ', 'opened.']) await trickle(response, sse(contentEvent(word)), 5);
      await trickle(response, sse(metadataEvent));
      await trickle(response, sse('[DONE]'), 3);
      response.end();
    };

    const events = client.answer({ query: 'Which battery plants opened?' })[Symbol.asyncIterator]();
    const first = await within(3_000, events.next(), 'the first event');
    expect(first.value).toMatchObject({ type: 'search_results', searchResults: [{ title: 'Battery plants' }] });
    expect(wroteRest).toBe(false);

    rest.open();
    const later: AnswerEvent[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) later.push(next.value);
    expect(later.map((event) => event.type)).toEqual(['content', 'content', 'content', 'metadata', 'done']);
    expect(later.flatMap((event) => (event.type === 'content' ? [event.delta] : [])).join('')).toBe('Three plants opened.');
  });

  test('a stream that ends without [DONE] fails clearly', async () => {
    routes['POST /v1/answer'] = async (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      await trickle(response, sse(searchResultsEvent) + sse(contentEvent('Half an ans')));
      response.end();
    };
    const received: AnswerEvent[] = [];
    const error = await (async () => {
      for await (const event of client.answer({ query: 'q' })) received.push(event);
    })().catch((caught: unknown) => caught);
    expect(received.map((event) => event.type)).toEqual(['search_results', 'content']);
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: false, path: '/v1/answer' });
    expect((error as Error).message).toContain('answer stream ended without [DONE] after 2 event(s); the answer may be truncated');
  });

  test('a connection reset mid-stream is a retryable network failure', async () => {
    routes['POST /v1/answer'] = async (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      await trickle(response, sse(searchResultsEvent));
      response.socket?.destroy();
    };
    const error = await (async () => {
      for await (const _event of client.answer({ query: 'q' })) {
        /* drain */
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ kind: 'network', retryable: true, path: '/v1/answer' });
  });

  test('a long answer is not cut off by the time limit while chunks keep coming', async () => {
    const short = new ResearchClient({ apiKey: API_KEY, baseUrl: client.baseUrl, timeoutMs: 300 });
    routes['POST /v1/answer'] = async (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse(searchResultsEvent));
      // Six chunks 150 ms apart: 900 ms in all, three times the limit, never 300 ms without a byte.
      for (let chunk = 0; chunk < 6; chunk++) {
        await pause(150);
        response.write(sse(contentEvent(`part ${chunk} `)));
      }
      response.end(sse(metadataEvent) + sse('[DONE]'));
    };
    const types: string[] = [];
    for await (const event of short.answer({ query: 'q' })) types.push(event.type);
    await short.close();
    expect(types).toEqual(['search_results', ...Array<string>(6).fill('content'), 'metadata', 'done']);
  });

  test('a stream that stalls longer than the time limit fails as a retryable timeout', async () => {
    const short = new ResearchClient({ apiKey: API_KEY, baseUrl: client.baseUrl, timeoutMs: 200 });
    routes['POST /v1/answer'] = async (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse(searchResultsEvent));
      await pause(1_000);
      response.end(sse('[DONE]'));
    };
    const error = await (async () => {
      for await (const _event of short.answer({ query: 'q' })) {
        /* drain */
      }
    })().catch((caught: unknown) => caught);
    await short.close();
    expect(error).toMatchObject({ kind: 'timeout', retryable: true, path: '/v1/answer' });
  });

  test('a service error before the stream starts is an HTTP error', async () => {
    routes['POST /v1/answer'] = (_request, _body, response) => json(response, 402, { success: false, error: 'top up your account' });
    const error = await (async () => {
      for await (const _event of client.answer({ query: 'q' })) {
        /* drain */
      }
    })().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'http', status: 402, isCreditsExhausted: true });
  });
});
