import { z } from 'zod';
import { deliverableRequest } from '../../api/schemas/tasks';
import type { DeliverableSpec } from './task-record';

/** File types the emulator generates, with their extension and content type. */
export const DELIVERABLE_TYPES = {
  csv: { extension: 'csv', contentType: 'text/csv; charset=utf-8' },
  xlsx: { extension: 'xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  docx: { extension: 'docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  pptx: { extension: 'pptx', contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' },
  pdf: { extension: 'pdf', contentType: 'application/pdf' },
} as const;
/** A generated file type. */
export type DeliverableType = keyof typeof DELIVERABLE_TYPES;

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
    if (!type) return { ok: false, index, message: `must be one of ${Object.keys(DELIVERABLE_TYPES).join(', ')} (or a synonym such as excel, word, powerpoint)` };
    value.push({ type, description: typeof request === 'string' ? request : request.description });
  }
  return { ok: true, value };
}

/** True when `type` is one the emulator generates. */
export function isDeliverableType(type: string): type is DeliverableType {
  return type in DELIVERABLE_TYPES;
}
