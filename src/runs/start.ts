import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { itemSource } from '../pipelines/input-source';
import { ITEM_KEY_PATTERN, ITEM_KEY_RULE } from '../pipelines/item-keys';
import type { LoadedPipeline } from '../pipelines/load';
import type { ParameterValue } from '../pipelines/parameter-schema';
import { resolveParameters } from '../pipelines/parameters';
import { stepSpec } from '../pipelines/step-kind';
import { pipelineRunWorkflowId } from '../workflows/ids';
import type { pipelineRunWorkflow } from '../workflows/pipeline-run';
import type { PipelineRunInput } from '../workflows/pipeline-types';
import { ResearchPipelineKey } from '../workflows/search-attributes';
import type { PollingOverrides } from '../workflows/types';

/** A run key that cannot name a workflow id; the message says the rule. */
export class RunKeyError extends Error {
  constructor(runKey: string) {
    super(`run key "${runKey}" must be ${ITEM_KEY_RULE}`);
    this.name = 'RunKeyError';
  }
}

/** Options of `startPipeline`. */
export interface StartPipelineOptions {
  /** The run's idempotency key: one run per key, ever (an app event delivered twice starts nothing twice). */
  runKey: string;
  /** Task queue of the workers (default `research-pipelines`). */
  taskQueue?: string;
  /**
   * Start the run key again after its run closed, redoing only items that did not complete (their
   * records say so). Without it a closed run's key returns that run instead.
   */
  resume?: boolean;
  /** Compare the results with the previous completed run of the pipeline (a change report). */
  compareWithPrevious?: boolean;
  polling?: PollingOverrides;
  /** Values given as text (the command line) are converted to the parameters' types. */
  textValues?: boolean;
}

/** What `startPipeline` did: started a run, or found the one this run key already has. */
export interface StartedPipeline {
  handle: WorkflowHandle<typeof pipelineRunWorkflow>;
  workflowId: string;
  /** False when the run key already had a run (running, or closed without `resume`): that run is returned. */
  started: boolean;
}

/**
 * Starts a pipeline run for a backend or the CLI, never two for one run key: the workflow id comes from
 * the key, a running run is returned (`USE_EXISTING`), and a closed one is returned too unless `resume`
 * asks to start the key again. Parameters are checked first (`ParameterError` names each problem).
 */
export async function startPipeline(client: Client, loaded: LoadedPipeline, params: Readonly<Record<string, ParameterValue>>, options: StartPipelineOptions): Promise<StartedPipeline> {
  const { definition } = loaded;
  if (!ITEM_KEY_PATTERN.test(options.runKey)) throw new RunKeyError(options.runKey);
  const input: PipelineRunInput = {
    definition,
    source: itemSource(loaded),
    params: resolveParameters(definition.parameters, params, { textValues: options.textValues }),
    runKey: options.runKey,
    ...(options.compareWithPrevious ? { compareWithPrevious: true } : {}),
    ...(options.polling ? { polling: options.polling } : {}),
  };
  const workflowId = pipelineRunWorkflowId(definition.name, options.runKey);
  const before = await client.workflow.getHandle(workflowId).describe().then((description) => description.runId, () => undefined);
  try {
    const handle = await client.workflow.start<typeof pipelineRunWorkflow>('pipelineRunWorkflow', {
      workflowId,
      taskQueue: options.taskQueue ?? 'research-pipelines',
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: options.resume ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: ResearchPipelineKey, value: definition.name }],
      staticSummary: `Pipeline ${definition.name}, run ${options.runKey}`,
      staticDetails: [
        `**${definition.name}**${definition.description ? `: ${definition.description}` : ''}`,
        `step: ${stepSpec(definition.step).kind} · concurrency ${definition.concurrency} · budget ${definition.budget_usd} USD`,
        `parameters: ${Object.entries(input.params).map(([name, value]) => `${name}=${String(value)}`).join(', ') || 'none'}`,
      ].join('\n\n'),
    });
    return { handle, workflowId, started: handle.firstExecutionRunId !== before };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { handle: client.workflow.getHandle<typeof pipelineRunWorkflow>(workflowId), workflowId, started: false };
  }
}
