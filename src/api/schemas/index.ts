/** Zod schemas of every request and response of the research service, shared by client and emulator. */
export * from './common';
export * from './webhook-url';
export * from './search';
export * from './answer';
export * from './checkpoints';
export * from './tasks';
export * from './batches';
export * from './workflows';
export * from './datasources';
