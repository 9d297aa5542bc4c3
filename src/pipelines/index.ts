/** Pipeline definitions: schema, loader, parameters, templates, item inputs, estimates (dry runs are in src/runs/dry-run.ts). */
export * from './definition-schema';
export * from './step-schema';
export * from './parameter-schema';
export { OVERLAP_POLICIES, cronProblem, isValidTimeZone, nextScheduleTimes, scheduleSchema } from './schedule-schema';
export * from './load';
export * from './json-schema';
export * from './parameters';
export * from './step-kind';
export * from './item-keys';
export * from './input-source';
export { InputError } from './input-file';
export * from './read-items';
export * from './render-item';
export * from './estimate';
export type { ItemSource, ItemCursor, ItemPage, SourceItem, KeyedItem, RunContext, CostEstimate, FileFingerprint } from './types';
export { renderTemplate, renderDeep, parseTemplate, TemplateError, slug } from '../shared/template';
