/** Public API of research-pipelines. */
export * from './api';
