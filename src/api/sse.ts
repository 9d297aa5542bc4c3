import { createParser } from 'eventsource-parser';
import { ResearchApiError, type ValidationErrorLike } from './errors';
import { isRecord } from '../shared/guards';

/** One dispatched Server-Sent Event; `id` is the stream's last event id, which persists across events per the spec. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * Parses a byte or text stream into Server-Sent Events with `eventsource-parser` (the WHATWG rules),
 * yielding each event as soon as its blank line arrives. An event still open when the stream ends is
 * discarded, as the spec requires: it may be truncated.
 */
export async function* parseSseStream(
  source: AsyncIterable<Uint8Array | string>,
  limits: { maxEventBytes?: number; tooLong?: (bytes: number) => Error } = {},
): AsyncGenerator<SseEvent> {
  // Bytes taken since the last dispatched event: an event that never ends is refused, not buffered.
  let pending = 0;
  // One streaming decoder for the whole body, so a character split across chunks is decoded once whole.
  const decoder = new TextDecoder('utf-8');
  const ready: SseEvent[] = [];
  // The spec's last event id persists across events; the parser reports only the id an event carries.
  let lastEventId: string | undefined;
  const parser = createParser({
    onEvent: ({ data, event, id }) => {
      lastEventId = id ?? lastEventId;
      ready.push({ data, ...(event ? { event } : {}), ...(lastEventId ? { id: lastEventId } : {}) });
    },
  });
  let endsInCarriageReturn = false;
  const feed = (text: string): void => {
    if (text === '') return;
    parser.feed(text);
    endsInCarriageReturn = text.endsWith('\r');
  };
  for await (const chunk of source) {
    feed(typeof chunk === 'string' ? decoder.decode() + chunk : decoder.decode(chunk, { stream: true }));
    pending = ready.length > 0 ? 0 : pending + chunk.length;
    if (limits.maxEventBytes !== undefined && pending > limits.maxEventBytes) {
      throw limits.tooLong?.(pending) ?? new Error(`a server-sent event is over ${limits.maxEventBytes} bytes`);
    }
    yield* ready.splice(0);
  }
  feed(decoder.decode());
  // A final \r is a whole line end (nothing can follow it now), which the parser waits to see confirmed.
  if (endsInCarriageReturn) parser.feed('\n');
  yield* ready.splice(0);
}

/** Anything with zod's `safeParse` contract, so callers can plug in their own schemas. */
export interface SafeParser<T> {
  safeParse(input: unknown): { success: true; data: T } | { success: false; error: ValidationErrorLike };
}

/** One classified event of an Answer stream (spec 6.1), in the order the service produces them. */
export type AnswerStreamEvent<SearchResult = Record<string, unknown>, Content = Record<string, unknown>, Metadata = Record<string, unknown>> =
  | { type: 'search_results'; searchResults: SearchResult[] }
  | { type: 'content'; delta: string; raw: Content }
  | { type: 'metadata'; metadata: Metadata }
  | { type: 'done' };

/** Optional schemas for each event payload (the whole JSON object of the event). */
export interface AnswerStreamValidators<SearchResult, Content, Metadata> {
  searchResults?: SafeParser<{ search_results: SearchResult[] }>;
  content?: SafeParser<Content>;
  metadata?: SafeParser<Metadata>;
}

/** Validators plus the request the stream belongs to, for error messages. */
export interface AnswerStreamOptions<SearchResult, Content, Metadata> {
  validate?: AnswerStreamValidators<SearchResult, Content, Metadata>;
  method?: string;
  path?: string;
  /** Largest single event (bytes): a longer one fails the stream instead of being buffered. */
  maxEventBytes?: number;
}

type AnswerEventKind = 'searchResults' | 'content' | 'metadata';

/**
 * Parses an Answer stream into search results, content deltas and metadata, ending at `[DONE]`.
 * Throws `ResearchApiError` (kind `invalid_response`) for malformed JSON, an unknown event shape,
 * a payload failing its schema, or a stream that ends before `[DONE]` (the answer may be truncated).
 */
export async function* parseAnswerStream<SearchResult = Record<string, unknown>, Content = Record<string, unknown>, Metadata = Record<string, unknown>>(
  source: AsyncIterable<Uint8Array | string>,
  options: AnswerStreamOptions<SearchResult, Content, Metadata> = {},
): AsyncGenerator<AnswerStreamEvent<SearchResult, Content, Metadata>> {
  const target = { method: options.method ?? 'POST', path: options.path ?? '/v1/answer' };
  const validate = options.validate ?? {};
  const fail = (detail: string, error?: ValidationErrorLike) => ResearchApiError.invalidResponse({ ...target, detail, error });
  let received = 0;
  const maxEventBytes = options.maxEventBytes;
  const tooLong = (bytes: number) => fail(`an event is over the ${maxEventBytes} bytes one may have (${bytes} or more without an end): not read further`);
  for await (const { data } of parseSseStream(source, maxEventBytes !== undefined ? { maxEventBytes, tooLong } : {})) {
    if (data.trim() === '[DONE]') {
      yield { type: 'done' };
      return;
    }
    received++;
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      throw fail(`malformed JSON in answer stream event ${quote(data)}`);
    }
    const kind = classify(payload) ?? matchingSchema(payload, validate);
    if (!kind) throw fail(`unrecognised answer stream event ${quote(data)}`);
    const parser: SafeParser<unknown> | undefined = validate[kind];
    const parsed = parser ? parser.safeParse(payload) : { success: true as const, data: payload };
    if (!parsed.success) throw fail(`answer stream ${kind} event does not match its schema`, parsed.error);
    // Types below are the caller's schema outputs, or the structural checks in `classify` when none was given.
    if (kind === 'searchResults') {
      yield { type: 'search_results', searchResults: (parsed.data as { search_results: SearchResult[] }).search_results };
    } else if (kind === 'content') {
      yield { type: 'content', delta: contentDelta(parsed.data) ?? contentDelta(payload) ?? '', raw: parsed.data as Content };
    } else {
      yield { type: 'metadata', metadata: parsed.data as Metadata };
    }
  }
  throw fail(`answer stream ended without [DONE] after ${received} event(s); the answer may be truncated`);
}

/** Structural classification from spec 6.1; metadata first because it also carries `search_results`. */
function classify(payload: unknown): AnswerEventKind | undefined {
  if (!isRecord(payload)) return undefined;
  if ('success' in payload) return 'metadata';
  if (Array.isArray(payload.search_results)) return 'searchResults';
  if (Array.isArray(payload.choices)) return 'content';
  return undefined;
}

function matchingSchema(payload: unknown, validate: Partial<Record<AnswerEventKind, SafeParser<unknown>>>): AnswerEventKind | undefined {
  const kinds: AnswerEventKind[] = ['searchResults', 'content', 'metadata'];
  return kinds.find((kind) => validate[kind]?.safeParse(payload).success);
}

/** Concatenates the text of every choice's delta (role-only deltas add nothing); undefined without `choices`. */
function contentDelta(payload: unknown): string | undefined {
  if (!isRecord(payload) || !Array.isArray(payload.choices)) return undefined;
  return payload.choices
    .map((choice: unknown) => (isRecord(choice) && isRecord(choice.delta) && typeof choice.delta.content === 'string' ? choice.delta.content : ''))
    .join('');
}

function quote(data: string): string {
  return data.length > 60 ? `${JSON.stringify(data.slice(0, 60))}…` : JSON.stringify(data);
}
