import type { Batch } from '../../api/schemas/batches';
import type { BatchRecord } from './batch-record';
import { iso } from './views';

/** A batch as the service reports it (never with its webhook secret). */
export function batchView(batch: BatchRecord): Batch {
  return {
    batch_id: batch.id,
    organisation_id: batch.organization,
    ...(batch.name ? { name: batch.name } : {}),
    status: batch.status,
    mode: batch.config.mode,
    counts: { ...batch.counts },
    cost: batch.costUsd,
    created_at: iso(batch.createdAt),
    ...(batch.finishedAt !== undefined ? { completed_at: iso(batch.finishedAt) } : {}),
    ...(batch.metadata ? { metadata: batch.metadata } : {}),
    output_formats: [...batch.config.outputFormats],
    // Both clients read the shared search settings back as `search_params`.
    ...(batch.search ? { search_params: batch.search } : {}),
    ...(batch.webhookUrl ? { webhook_url: batch.webhookUrl } : {}),
  };
}

/** The batch webhook body: `event` is always `batch.completed`; `status` tells completed from completed_with_errors. */
export function batchWebhookBody(batch: BatchRecord, at: number): Record<string, unknown> {
  return {
    event: 'batch.completed',
    batch_id: batch.id,
    status: batch.status,
    counts: { ...batch.counts },
    cost: batch.costUsd,
    ...(batch.name ? { name: batch.name } : {}),
    ...(batch.metadata ? { metadata: batch.metadata } : {}),
    created_at: iso(batch.createdAt),
    completed_at: iso(at),
    timestamp: iso(at),
  };
}

/** The listing query as the shared schema expects it. */
// Query strings are text; the shared schema wants a number and a boolean, so convert only clean values
// and let anything else reach the schema as a string and fail there with the field's name.
export function queryObject(query: URLSearchParams): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key);
    const value = values.length === 1 ? values[0]! : values;
    if (key === 'limit' && typeof value === 'string' && /^\d+$/.test(value)) result[key] = Number(value);
    else if (key === 'include_output' && (value === 'true' || value === 'false')) result[key] = value === 'true';
    else result[key] = value;
  }
  return result;
}
