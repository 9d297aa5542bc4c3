import type { Payload } from '@temporalio/common';
import { z } from 'zod';

// Protobuf JSON writes bytes as standard base64; the UI may send either alphabet.
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

/** The body of the Temporal remote codec protocol's `/encode` and `/decode`: payloads with base64 bytes. */
export const codecRequestSchema = z.object(
  {
    payloads: z.array(
      z.object({
        metadata: z.record(z.string(), base64).optional(),
        data: base64.optional(),
      }),
      { error: 'must be an array of payloads ({ metadata, data } with base64 values)' },
    ),
  },
  { error: 'must be a JSON object { payloads: [...] }' },
);

/** A payload in the protocol's JSON form. */
export type JsonPayload = z.infer<typeof codecRequestSchema>['payloads'][number];

/** The first problem of a bad body, as `field: rule`. */
export function bodyProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`;
}

/** A protocol payload as the SDK's `Payload`. */
export function fromJsonPayload(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, bytes(value)])),
    data: bytes(payload.data ?? ''),
  };
}

/** An SDK `Payload` in the protocol's JSON form. */
export function toJsonPayload(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));
