import { ResearchApiError, type ValidationErrorLike } from './errors';
import { isRecord } from '../shared/guards';

/** One dispatched Server-Sent Event; `id` is the stream's last event id, which persists across events per the spec. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * Parses a byte or text stream into Server-Sent Events (WHATWG HTML "event stream interpretation"),
 * yielding each event as soon as its blank line arrives. An event still open when the stream ends is
 * discarded, as the spec requires: it may be truncated.
 */
export async function* parseSseStream(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  // One streaming decoder for the whole body, so a character split across chunks is decoded once whole.
  // `ignoreBOM` leaves the BOM to the line splitter, which strips exactly one for byte and text sources alike.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const lines = new LineSplitter();
  const builder = new EventBuilder();
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? decoder.decode() + chunk : decoder.decode(chunk, { stream: true });
    for (const line of lines.push(text)) {
      const event = builder.line(line);
      if (event) yield event;
    }
  }
  // Flushing yields at most replacement characters with no line end, so nothing more can be dispatched.
  lines.push(decoder.decode());
}

/** Splits text into lines ending in \n, \r\n or \r, keeping the unfinished tail for the next chunk. */
class LineSplitter {
  private tail = '';
  private started = false;
  // A chunk ending in \r may be half of \r\n: remember to drop a \n that opens the next chunk.
  private skipLeadingLineFeed = false;

  push(text: string): string[] {
    if (!text) return [];
    if (!this.started) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    if (this.skipLeadingLineFeed && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLineFeed = false;
    const buffer = this.tail + text;
    const lines: string[] = [];
    let start = 0;
    for (let index = this.tail.length; index < buffer.length; index++) {
      const char = buffer[index];
      if (char !== '\n' && char !== '\r') continue;
      lines.push(buffer.slice(start, index));
      if (char === '\r') {
        if (index + 1 === buffer.length) this.skipLeadingLineFeed = true;
        else if (buffer[index + 1] === '\n') index++;
      }
      start = index + 1;
    }
    this.tail = buffer.slice(start);
    return lines;
  }
}

/** Applies the spec's field rules line by line and returns an event when a blank line completes one. */
class EventBuilder {
  private data: string[] = [];
  private eventType: string | undefined;
  private lastEventId: string | undefined;

  line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventType = value;
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const { data, eventType, lastEventId } = this;
    this.data = [];
    this.eventType = undefined;
    // The spec dispatches nothing for a block without data lines (e.g. only `event:` or `id:`).
    if (data.length === 0) return undefined;
    return {
      data: data.join('\n'),
      ...(eventType ? { event: eventType } : {}),
      ...(lastEventId ? { id: lastEventId } : {}),
    };
  }
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
  for await (const { data } of parseSseStream(source)) {
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

