import type { ResearchContext } from './research-types';

/** The task queue workers poll and clients start runs on, unless TEMPORAL_TASK_QUEUE names another. */
export const DEFAULT_TASK_QUEUE = 'research-pipelines';

const part = (value: string): string => value.replace(/[/\s]+/g, '-');

/**
 * Workflow id of one research task, deterministic from its pipeline run and item, so an event or a
 * schedule that fires twice starts nothing twice.
 */
export function researchTaskWorkflowId(context: Required<ResearchContext>): string {
  return `research-task/${part(context.pipeline)}/${part(context.run)}/${part(context.item)}`;
}

/** Workflow id of one service batch of a pipeline run. */
export function researchBatchWorkflowId(context: { pipeline: string; run: string; batch?: string }): string {
  return `research-batch/${part(context.pipeline)}/${part(context.run)}/${part(context.batch ?? 'all')}`;
}

/** Task metadata naming the pipeline, run and item (the service echoes it in status and lists). */
export function contextMetadata(context: ResearchContext | undefined): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (context?.pipeline) metadata.rp_pipeline = context.pipeline;
  if (context?.run) metadata.rp_run = context.run;
  if (context?.item) metadata.rp_item = context.item;
  return metadata;
}

/** A workflow id made safe as one artifact-store path segment. */
export function storageKey(workflowId: string): string {
  return workflowId.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/**
 * Workflow id of one item of a pipeline run: the research task workflow that serves it, so a run that
 * is retried or continued as new finds the item's workflow instead of starting (and paying for) another.
 */
export function pipelineItemWorkflowId(pipeline: string, run: string, itemKey: string): string {
  return researchTaskWorkflowId({ pipeline, run, item: itemKey });
}

/**
 * The research task workflow id of an item in a given generation: the plain id first, `~<n>` after an
 * earlier execution of the run key left the item cancelled (its workflow completed, so the id is spent).
 */
export function pipelineItemGenerationId(pipeline: string, run: string, itemKey: string, generation: number | undefined): string {
  const id = pipelineItemWorkflowId(pipeline, run, itemKey);
  return generation ? `${id}~${generation}` : id;
}

/**
 * The research task workflow id of one step of a `steps:` item (DeepResearch and service-workflow steps):
 * under the item's id, so a retry or a resumed run finds the step's workflow instead of paying for another.
 */
export function pipelineStepWorkflowId(pipeline: string, run: string, itemKey: string, stepId: string, generation: number | undefined): string {
  return `${pipelineItemGenerationId(pipeline, run, itemKey, generation)}/steps/${part(stepId)}`;
}

/** The key an Answer, Search or Contents step's call and result are stored under (item keys never hold a `/`). */
export function pipelineStepCallKey(itemKey: string, stepId: string): string {
  return `${itemKey}/${stepId}`;
}

/** Workflow id of one pipeline run, deterministic from the pipeline and the run key (a schedule slot or an app event's idempotency key). */
export function pipelineRunWorkflowId(pipeline: string, run: string): string {
  return `pipeline-run/${part(pipeline)}/${part(run)}`;
}

/**
 * Workflow id a pipeline's schedule starts its runs under: Temporal appends each fire's time, so every
 * scheduled run has its own id, and its run key is the rest after `pipeline-run/<pipeline>/` (see runKeyOfRunWorkflowId).
 */
export function scheduledRunWorkflowId(pipeline: string): string {
  return pipelineRunWorkflowId(pipeline, 'scheduled');
}

/** Artifact-store folder of one pipeline run: item records, results and output files live below it. */
export function pipelineRunPrefix(pipeline: string, run: string): string {
  return `pipelines/${storageKey(pipeline)}/${storageKey(run)}`;
}

/** Workflow id of a run's DeepResearch synthesis (`~` cannot start an item key, so no item shares it). */
export function pipelineSynthesisWorkflowId(pipeline: string, run: string): string {
  return researchTaskWorkflowId({ pipeline, run, item: '~synthesis' });
}

/**
 * The run key of a run workflow started without one (a schedule's run): the rest of its id after
 * `pipeline-run/<pipeline>/`, which a schedule makes unique per fire by appending the time.
 */
export function runKeyOfRunWorkflowId(workflowId: string, pipeline: string): string {
  const prefix = `pipeline-run/${part(pipeline)}/`;
  return workflowId.startsWith(prefix) ? workflowId.slice(prefix.length) : workflowId.replace(/[/\s]+/g, '-');
}
