import Long from 'long';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** Histories of every run of a workflow's continue-as-new chain, latest run first. */
export async function chainHistories(client: Client, workflowId: string): Promise<History[]> {
  const histories: History[] = [];
  let runId: string | undefined;
  do {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push(history);
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return histories;
}

/** Serialized size of a payload (data and metadata), the figure the server's 2 MB limit applies to. */
export function payloadBytes(payload: Payload): number {
  return temporal.api.common.v1.Payload.encode(payload).finish().length;
}

/** Size in bytes of the largest payload anywhere in `value` (a history, an event, ...). */
export function largestPayloadIn(value: unknown): number {
  if (isPayload(value)) return payloadBytes(value);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array || Long.isLong(value)) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.reduce<number>((largest, child) => Math.max(largest, largestPayloadIn(child)), 0);
}

/** Every payload's data anywhere in `value`, as text. */
export function payloadTextsIn(value: unknown): string[] {
  if (isPayload(value)) return [Buffer.from(value.data as Uint8Array).toString('utf8')];
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array || Long.isLong(value)) return [];
  return (Array.isArray(value) ? value : Object.values(value)).flatMap(payloadTextsIn);
}

// Events hold payloads at many depths (inputs, results, markers, update requests); walking them
// generically finds them all without listing every event type.
function isPayload(value: unknown): value is Payload {
  return (
    typeof value === 'object' &&
    value !== null &&
    'data' in value &&
    value.data instanceof Uint8Array &&
    'metadata' in value &&
    typeof value.metadata === 'object'
  );
}
