import { z } from 'zod';
import { deliverableRequest } from '../../api/schemas/tasks';
import type { DeliverableSpec } from './task-record';

/** File types the emulator generates, named by their extension (the content type follows from it). */
export const DELIVERABLE_TYPES = ['csv', 'xlsx', 'docx', 'pptx', 'pdf'] as const;
/** A generated file type. */
export type DeliverableType = (typeof DELIVERABLE_TYPES)[number];

const TYPE_WORDS: readonly (readonly [DeliverableType, RegExp])[] = [
  ['csv', /\bcsv\b/i],
  ['xlsx', /\b(xlsx?|excel|spreadsheet|workbook)\b/i],
  ['pptx', /\b(pptx?|powerpoint|slides?|deck|presentation)\b/i],
  ['pdf', /\bpdf\b/i],
  ['docx', /\b(docx?|word|memo|document|brief|letter)\b/i],
  ['csv', /\b(table|list|dataset|data)\b/i],
];

/** The file type a deliverable request names or implies; undefined for an explicit type we do not make. */
export function deliverableTypeOf(request: z.infer<typeof deliverableRequest>): DeliverableType | undefined {
  if (typeof request === 'string') return TYPE_WORDS.find(([, pattern]) => pattern.test(request))?.[0] ?? 'docx';
  const named = request.type.trim().toLowerCase();
  return TYPE_WORDS.find(([, pattern]) => pattern.test(named))?.[0];
}

/**
 * Normalises requested deliverables; returns the index and message of the first unsupported type, so the
 * caller can answer 400 naming `deliverables[i].type`.
 */
export function normaliseDeliverables(
  requests: readonly z.infer<typeof deliverableRequest>[],
): { ok: true; value: DeliverableSpec[] } | { ok: false; index: number; message: string } {
  const value: DeliverableSpec[] = [];
  for (const [index, request] of requests.entries()) {
    const type = deliverableTypeOf(request);
    if (!type) return { ok: false, index, message: `must be one of ${DELIVERABLE_TYPES.join(', ')} (or a synonym such as excel, word, powerpoint)` };
    value.push({ type, description: typeof request === 'string' ? request : request.description });
  }
  return { ok: true, value };
}

/** True when `type` is one the emulator generates. */
export function isDeliverableType(type: string): type is DeliverableType {
  return (DELIVERABLE_TYPES as readonly string[]).includes(type);
}
