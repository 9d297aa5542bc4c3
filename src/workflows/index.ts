/** The workflows this worker runs (the bundle's entry point). */
export { researchTaskWorkflow } from './research-task';
export { researchBatchWorkflow } from './research-batch';
export { pipelineRunWorkflow } from './pipeline-run';
