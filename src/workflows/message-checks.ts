import { isRecord } from '../shared/guards';
import type { CreateDecision, WebhookNotice } from './types';

// Signals cannot be refused to their sender, and a handler that throws fails the workflow task again
// and again: every signal payload is checked here and a bad one is recorded instead of acted on.

/** A webhook notice the intake sends, or why the payload is not one. */
export function parseWebhookNotice(value: unknown): { notice: WebhookNotice } | { problem: string } {
  if (!isRecord(value)) return { problem: `webhookReceived needs an object like {deepresearchId, status}, got ${describe(value)}` };
  for (const field of ['deepresearchId', 'batchId', 'status'] as const) {
    const fieldValue = value[field];
    if (fieldValue !== undefined && (typeof fieldValue !== 'string' || fieldValue.length === 0)) {
      return { problem: `webhookReceived.${field} must be a non-empty string when given, got ${describe(fieldValue)}` };
    }
  }
  const pick = (field: 'deepresearchId' | 'batchId' | 'status') => (typeof value[field] === 'string' ? { [field]: value[field] } : {});
  return { notice: { ...pick('deepresearchId'), ...pick('batchId'), ...pick('status') } };
}

/** An operator's create decision: exactly `{adoptTaskId: "<id>"}` or `{createAgain: true}`. */
export function parseCreateDecision(value: unknown): { decision: CreateDecision } | { problem: string } {
  const rule = 'resolveCreate needs {"adoptTaskId": "<task id>"} or {"createAgain": true}';
  if (!isRecord(value)) return { problem: `${rule}, got ${describe(value)}` };
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value.adoptTaskId === 'string' && value.adoptTaskId.trim().length > 0) return { decision: { adoptTaskId: value.adoptTaskId.trim() } };
  if (keys.length === 1 && value.createAgain === true) return { decision: { createAgain: true } };
  return { problem: `${rule}, got ${describe(value)}` };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
