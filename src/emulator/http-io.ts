import type { IncomingMessage, ServerResponse } from 'node:http';
import { EmulatorHttpError, type EmulatorResponse } from './types';

/** Reads the request body, refusing (413) more than `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) throw EmulatorHttpError.of(413, `Request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) throw EmulatorHttpError.of(413, `Request body exceeds ${limit} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body; an empty body is `undefined`, invalid JSON a 400. */
export function parseJsonBody(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw EmulatorHttpError.of(400, `Invalid JSON body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The first value of a request header (Node lowercases header names). */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Writes a JSON, raw or SSE response; resolves when the last byte is handed to the socket. */
export async function writeResponse(response: ServerResponse, answer: EmulatorResponse): Promise<void> {
  if ('json' in answer) {
    const body = JSON.stringify(answer.json);
    response.writeHead(answer.status, {
      ...answer.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    await endWith(response, body);
    return;
  }
  if ('raw' in answer) {
    response.writeHead(answer.status, { ...answer.headers, 'content-type': answer.contentType, 'content-length': answer.raw.byteLength });
    await endWith(response, answer.raw);
    return;
  }
  response.writeHead(answer.status, {
    ...answer.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();
  for await (const payload of answer.sse) {
    // A caller that hung up ends the stream; the generator's `finally` blocks still run.
    if (response.destroyed) break;
    response.write(formatSseEvent(payload));
  }
  if (!response.destroyed) await endWith(response, '');
}

/** One SSE event: every line of `payload` as a `data:` line, then a blank line. */
export function formatSseEvent(payload: string): string {
  return `${payload.split(/\r\n|\r|\n/).map((line) => `data: ${line}`).join('\n')}\n\n`;
}

function endWith(response: ServerResponse, body: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    // 'close' covers a socket destroyed before the end callback could run (emulator closing).
    response.once('close', resolve);
    response.end(body, () => resolve());
  });
}
