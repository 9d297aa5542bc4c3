import { z } from 'zod';
import { ResearchApiError } from '../../src/api/errors';
import { parseAnswerStream, parseSseStream, type AnswerStreamEvent, type SseEvent } from '../../src/api/sse';

const encoder = new TextEncoder();

async function* chunksOf<T>(chunks: T[]): AsyncGenerator<T> {
  for (const chunk of chunks) yield chunk;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Every way to cut `bytes` in two, plus one byte per chunk. */
function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const splits = Array.from({ length: bytes.length + 1 }, (_, index) => [bytes.slice(0, index), bytes.slice(index)]);
  return [...splits, Array.from(bytes, (byte) => Uint8Array.of(byte))];
}

const searchResults = { search_results: [{ title: 'Café prices', url: 'https://example.com/a', content: 'Prix du café ☕' }] };
const contentChunks = ['Le café ', 'coûte 3 €', ' au Japon: 日本 🧪', ''];
const metadata = {
  success: true,
  tx_id: 'ai_tx_123',
  data_type: 'unstructured',
  search_results: searchResults.search_results,
  search_metadata: { tx_ids: ['tx_1'], number_of_results: 1, total_characters: 15 },
  ai_usage: { input_tokens: 10, output_tokens: 5 },
  cost: { total_deduction_dollars: 0.01, search_deduction_dollars: 0.005, ai_deduction_dollars: 0.005, contents_deduction_dollars: 0 },
};
const payloads = [
  searchResults,
  { choices: [{ delta: { role: 'assistant' }, index: 0 }] },
  ...contentChunks.map((content) => ({ choices: [{ delta: { role: 'assistant', content }, index: 0 }] })),
  metadata,
];
const answerStream = (eol = '\n') => [...payloads.map((payload) => `data: ${JSON.stringify(payload)}${eol}${eol}`), `data: [DONE]${eol}${eol}`].join('');

const expectedAnswer: AnswerStreamEvent[] = [
  { type: 'search_results', searchResults: searchResults.search_results },
  { type: 'content', delta: '', raw: payloads[1] as Record<string, unknown> },
  ...contentChunks.map((delta, index) => ({ type: 'content' as const, delta, raw: payloads[index + 2] as Record<string, unknown> })),
  { type: 'metadata', metadata },
  { type: 'done' },
];

describe('parseSseStream', () => {
  test.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('decodes a realistic stream split at every byte boundary (%s line endings)', async (_name, eol) => {
    const bytes = encoder.encode(answerStream(eol));
    const expected = [...payloads.map((payload) => ({ data: JSON.stringify(payload) })), { data: '[DONE]' }];
    for (const chunks of everySplit(bytes)) {
      await expect(collect(parseSseStream(chunksOf(chunks)))).resolves.toEqual(expected);
    }
  });

  test('keeps a multi-byte character whole when it is split across chunks', async () => {
    const bytes = encoder.encode('data: 🧪\n\n');
    const emojiStart = bytes.indexOf(0xf0);
    const chunks = [bytes.slice(0, emojiStart + 1), bytes.slice(emojiStart + 1, emojiStart + 3), bytes.slice(emojiStart + 3)];
    await expect(collect(parseSseStream(chunksOf(chunks)))).resolves.toEqual([{ data: '🧪' }]);
  });

  test('joins multi-line data with \\n and skips comments', async () => {
    const text = ': keep-alive\ndata: first\n: mid-event comment\ndata:second\ndata\n\n';
    await expect(collect(parseSseStream(chunksOf([text])))).resolves.toEqual([{ data: 'first\nsecond\n' }]);
  });

  test('strips exactly one space after the colon', async () => {
    await expect(collect(parseSseStream(chunksOf(['data:  two spaces\n\n'])))).resolves.toEqual([{ data: ' two spaces' }]);
  });

  test('reports event names and the last event id, which persists across events', async () => {
    const text = 'event: progress\nid: 7\ndata: a\n\ndata: b\n\n';
    await expect(collect(parseSseStream(chunksOf([text])))).resolves.toEqual([
      { event: 'progress', id: '7', data: 'a' },
      { id: '7', data: 'b' },
    ]);
  });

  test('dispatches nothing for a block without data lines', async () => {
    await expect(collect(parseSseStream(chunksOf(['event: ping\n\nretry: 10\n\n'])))).resolves.toEqual([]);
  });

  test('discards an event the stream ends in the middle of', async () => {
    await expect(collect(parseSseStream(chunksOf(['data: whole\n\ndata: cut\n'])))).resolves.toEqual([{ data: 'whole' }]);
    await expect(collect(parseSseStream(chunksOf(['data: whole\n\ndata: cut'])))).resolves.toEqual([{ data: 'whole' }]);
  });

  test('ignores a leading byte order mark', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('data: x\n\n')]);
    await expect(collect(parseSseStream(chunksOf([bytes])))).resolves.toEqual([{ data: 'x' }]);
  });

  test('accepts string chunks', async () => {
    await expect(collect(parseSseStream(chunksOf(['data: ', 'hi\r', '\n\r\n'])))).resolves.toEqual([{ data: 'hi' }]);
  });

  test('yields an event before the source has finished', async () => {
    let firstEventConsumed!: () => void;
    const consumed = new Promise<void>((resolve) => (firstEventConsumed = resolve));
    let sourceFinished = false;
    async function* source() {
      yield encoder.encode('data: first\n\n');
      await consumed; // the source blocks until the parser has handed over the first event
      yield encoder.encode('data: second\n\n');
      sourceFinished = true;
    }
    const seen: SseEvent[] = [];
    for await (const event of parseSseStream(source())) {
      seen.push(event);
      if (seen.length === 1) {
        expect(sourceFinished).toBe(false);
        firstEventConsumed();
      }
    }
    expect(seen).toEqual([{ data: 'first' }, { data: 'second' }]);
  });
});

describe('parseAnswerStream', () => {
  test('classifies search results, content deltas, metadata and done at every byte boundary', async () => {
    for (const chunks of everySplit(encoder.encode(answerStream()))) {
      await expect(collect(parseAnswerStream(chunksOf(chunks)))).resolves.toEqual(expectedAnswer);
    }
  });

  test('stops at [DONE] and closes the source', async () => {
    let closed = false;
    async function* source() {
      try {
        yield 'data: [DONE]\n\n';
        yield 'data: {not json\n\n';
      } finally {
        closed = true;
      }
    }
    await expect(collect(parseAnswerStream(source()))).resolves.toEqual([{ type: 'done' }]);
    expect(closed).toBe(true);
  });

  async function failure(text: string): Promise<ResearchApiError> {
    const error = await collect(parseAnswerStream(chunksOf([text]))).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ResearchApiError);
    return error as ResearchApiError;
  }

  test('rejects malformed JSON, quoting a short prefix', async () => {
    const error = await failure(`data: {"choices": [ ${'x'.repeat(200)}\n\n`);
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: false, method: 'POST', path: '/v1/answer' });
    expect(error.message).toContain('malformed JSON in answer stream event "{\\"choices\\": [ xxx');
    expect(error.message.length).toBeLessThan(200);
  });

  test('rejects an unrecognised event shape', async () => {
    const error = await failure('data: {"unexpected": true}\n\ndata: [DONE]\n\n');
    expect(error.message).toContain('unrecognised answer stream event "{\\"unexpected\\": true}"');
  });

  test('rejects a stream that ends without [DONE]', async () => {
    const error = await failure(`data: ${JSON.stringify(searchResults)}\n\n`);
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('ended without [DONE] after 1 event(s)');
  });

  describe('with schemas', () => {
    const searchEvent = z.object({ search_results: z.array(z.object({ title: z.string(), url: z.string().url() })) });
    const contentEvent = z.object({ choices: z.array(z.object({ delta: z.object({ content: z.string().optional() }) })) });
    const metadataEvent = z.object({ success: z.boolean(), tx_id: z.string().startsWith('ai_tx_') });
    const validate = { searchResults: searchEvent, content: contentEvent, metadata: metadataEvent };

    test('yields the schema outputs', async () => {
      const events = await collect(parseAnswerStream(chunksOf([answerStream()]), { validate }));
      expect(events[0]).toEqual({ type: 'search_results', searchResults: [{ title: 'Café prices', url: 'https://example.com/a' }] });
      expect(events.at(-2)).toEqual({ type: 'metadata', metadata: { success: true, tx_id: 'ai_tx_123' } });
      const first = events[0];
      if (first?.type === 'search_results') expect(first.searchResults[0]?.url).toBe('https://example.com/a');
    });

    test('names the field and rule when a payload fails its schema', async () => {
      const error = await collect(parseAnswerStream(chunksOf(['data: {"success": true, "tx_id": "tx_1"}\n\n']), { validate })).catch(
        (thrown: ResearchApiError) => thrown,
      );
      expect(error).toBeInstanceOf(ResearchApiError);
      expect((error as ResearchApiError).issues).toEqual([{ path: 'tx_id', message: 'Invalid string: must start with "ai_tx_"' }]);
      expect((error as ResearchApiError).message).toContain('answer stream metadata event does not match its schema: tx_id:');
    });

    test('falls back to the schemas for a payload with no structural marker', async () => {
      const custom = z.object({ text: z.string() }).transform((event) => ({ choices: [{ delta: { content: event.text } }] }));
      const events = await collect(parseAnswerStream(chunksOf(['data: {"text": "hi"}\n\ndata: [DONE]\n\n']), { validate: { content: custom } }));
      expect(events[0]).toMatchObject({ type: 'content', delta: 'hi', raw: { choices: [{ delta: { content: 'hi' } }] } });
    });
  });
});
