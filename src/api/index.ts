/** Typed client of the research service: schemas, client, errors, SSE and webhook signatures. */
export * from './schemas';
export { ResearchClient, type AnswerEvent, type TaskAsset, type TaskAssetStream } from './client';
export type { CallOptions, ResearchClientOptions } from './transport';
export * from './errors';
export { parseSseStream, parseAnswerStream, type SseEvent } from './sse';
export * from './webhooks';
