import type { AnswerEvent, ResearchClient } from '../../src/api/client';
import { ResearchApiError } from '../../src/api/errors';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { clientWithKey, KEYS, rawCall, rejectionOf, TEST_ACCOUNTS, useEmulator } from './helpers';

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const all: AnswerEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const text = (events: AnswerEvent[]): string => events.map((event) => (event.type === 'content' ? event.delta : '')).join('');

describe('POST /v1/answer', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator({ accounts: TEST_ACCOUNTS }, (started) => ({ emulator, client } = started));

  it('streams search results, several content chunks, metadata and done, in that order', async () => {
    const events = await collect(client.answer({ query: 'GLP-1 semaglutide cardiovascular outcomes' }));
    const kinds = events.map((event) => event.type);
    expect(kinds[0]).toBe('search_results');
    expect(kinds.slice(1, -2).every((kind) => kind === 'content')).toBe(true);
    expect(kinds.filter((kind) => kind === 'content').length).toBeGreaterThan(3);
    expect(kinds.slice(-2)).toEqual(['metadata', 'done']);
    expect(text(events)).toContain('[1]');
  });

  it('reports tx, search metadata, usage and a cost of 0.10 USD plus search and AI, and charges it', async () => {
    const events = await collect(client.answer({ query: 'Acme Robotics revenue' }));
    const metadata = events.find((event) => event.type === 'metadata');
    if (metadata?.type !== 'metadata') throw new Error('no metadata event');
    const { cost, search_metadata: searchMetadata, ai_usage: usage } = metadata.metadata;
    expect(metadata.metadata.tx_id).toMatch(/^ai_tx_[0-9a-f]{24}$/);
    expect(searchMetadata?.tx_ids[0]).toMatch(/^tx_/);
    expect(searchMetadata?.number_of_results).toBeGreaterThan(0);
    expect(usage?.input_tokens).toBeGreaterThan(0);
    expect(usage?.output_tokens).toBeGreaterThan(0);
    expect(cost.ai_deduction_dollars).toBeGreaterThan(0.1);
    expect(cost.total_deduction_dollars).toBeCloseTo(cost.search_deduction_dollars + cost.ai_deduction_dollars, 6);
    expect(emulator.accounts.find(KEYS.full)?.creditsUsd).toBeCloseTo(50 - cost.total_deduction_dollars, 6);
  });

  it('sends a real text/event-stream of data lines ending in [DONE]', async () => {
    const answer = await rawCall(emulator, 'POST', '/answer', { body: { query: 'Acme Robotics' }, apiKey: KEYS.full });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const blocks = answer.text.split('\n\n').filter(Boolean);
    expect(blocks.every((block) => block.startsWith('data: '))).toBe(true);
    expect(blocks.at(-1)).toBe('data: [DONE]');
  });

  it('streams a JSON object matching structured_output', async () => {
    const schema = {
      type: 'object',
      properties: {
        company: { type: 'string' },
        founded: { type: 'integer', minimum: 1900, maximum: 2025 },
        segments: { type: 'array', items: { type: 'string' } },
        stage: { type: 'string', enum: ['private', 'public'] },
        listed_on: { type: 'string', format: 'date' },
      },
      required: ['company'],
    };
    const events = await collect(client.answer({ query: 'Acme Robotics profile', structured_output: schema }));
    const value: unknown = JSON.parse(text(events));
    expect(value).toEqual({
      company: expect.any(String),
      founded: expect.any(Number),
      segments: expect.any(Array),
      stage: 'private',
      listed_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const metadata = events.find((event) => event.type === 'metadata');
    expect(metadata?.type === 'metadata' && metadata.metadata.data_type).toBe('structured');
  });

  it('keeps the search cost within data_max_price', async () => {
    const events = await collect(client.answer({ query: 'Acme Robotics revenue', data_max_price: 0.1 }));
    const metadata = events.find((event) => event.type === 'metadata');
    expect(metadata?.type === 'metadata' && metadata.metadata.cost.search_deduction_dollars).toBeLessThanOrEqual(0.1);
  });

  it('answers without sources when nothing matches', async () => {
    const events = await collect(client.answer({ query: 'zyxwvut qwertyuiop' }));
    expect(events[0]).toEqual({ type: 'search_results', searchResults: [] });
    expect(text(events)).toContain('could not find sources');
  });

  it.each([
    [{ query: 'x', country_code: 'XX' }, 'country_code'],
    [{ query: 'x', system_instructions: 'y'.repeat(2001) }, 'system_instructions'],
    [{ query: 'x', structured_output: nest(12) }, 'structured_output: JSON Schema must be at most 10 levels deep'],
    [{ query: 'x', data_max_price: 0 }, 'data_max_price'],
    [{ query: 'x', unknown_field: 1 }, 'Unrecognized key'],
  ])('answers 400 before streaming for %j', async (body, message) => {
    const answer = await rawCall(emulator, 'POST', '/answer', { body, apiKey: KEYS.full });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining(message) });
  });

  it('answers 402 before any event when credits are short', async () => {
    const poor = clientWithKey(emulator, KEYS.poor);
    const error = await rejectionOf(collect(poor.answer({ query: 'Acme Robotics' })));
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ status: 402 });
    await poor.close();
  });
});

function nest(depth: number): Record<string, unknown> {
  return depth === 0 ? { type: 'string' } : { type: 'object', properties: { inner: nest(depth - 1) } };
}

describe('POST /v1/answer when the caller hangs up', () => {
  it('logs that the caller left, not an internal error, and counts the request once, as answered', async () => {
    const lines: string[] = [];
    // The latency holds the answer back, so the caller is gone before it is written.
    const emulator = await startEmulator({ seed: 3, log: (line) => lines.push(line), faults: { answer: { latencyMs: 300 } } });
    try {
      const controller = new AbortController();
      const call = fetch(`${emulator.url}/answer`, {
        method: 'POST',
        headers: { 'x-api-key': emulator.defaultApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Lithium battery recycling in Europe' }),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      expect(await call).toMatchObject({ name: 'AbortError' });
      for (let waited = 0; waited < 3_000 && lines.length === 0; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(lines).toEqual(['emulator: the caller left POST /v1/answer before the answer ended']);
      expect(emulator.stats.snapshot().requests.answer).toEqual({ '200': 1 });
    } finally {
      await emulator.close();
    }
  });
});
