// The project's workflows plus the benchmark's baseline: one worker bundle runs both.
export * from '../../src/workflows';
export { bareLoopWorkflow } from './bare-loop';
