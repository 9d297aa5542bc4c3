import { createHash } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { itemSource } from '../pipelines/input-source';
import { ITEM_KEY_PATTERN, ITEM_KEY_RULE } from '../pipelines/item-keys';
import type { LoadedPipeline } from '../pipelines/load';
import type { ParameterValue } from '../pipelines/parameter-schema';
import { resolveParameters } from '../pipelines/parameters';
import { definitionKinds, sequenceSteps } from '../pipelines/step-kind';
import { DEFAULT_TASK_QUEUE, pipelineRunWorkflowId } from '../domain/ids';
import type { pipelineRunWorkflow } from '../workflows/pipeline-run';
import type { PipelineRunInput } from '../domain/pipeline-types';
import { ResearchPipelineKey } from '../workflows/search-attributes';
import type { PollingOverrides } from '../domain/research-types';

/** A run key that cannot name a workflow id; the message says the rule. */
export class RunKeyError extends Error {
  constructor(runKey: string) {
    super(`run key "${runKey}" must be ${ITEM_KEY_RULE}`);
    this.name = 'RunKeyError';
  }
}

/**
 * A run key already names a run started with other parameters: the key is the run's identity, so the
 * start is refused rather than answered with the other run. Names the parameters that differ, never
 * their values (a parameter may be a secret).
 */
export class RunKeyConflictError extends Error {
  constructor(
    readonly runKey: string,
    readonly differing: readonly string[],
  ) {
    super(
      `run key "${runKey}" already names a run started with other values for ${differing.map((name) => `"${name}"`).join(', ')}: use a new run key for these parameters`,
    );
    this.name = 'RunKeyConflictError';
  }
}

/** The memo field holding a run's parameter fingerprint (a hash per parameter: values never leave the workflow input). */
export const PARAMS_MEMO = 'paramsFingerprint';

/** One hash per parameter value, enough to tell a start with other values from a repeat. */
export function paramsFingerprint(params: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => [
        name,
        createHash('sha256')
          .update(JSON.stringify(value ?? null))
          .digest('hex')
          .slice(0, 32),
      ]),
  );
}

/** Parameters whose fingerprints differ (present in one and not the other counts as differing). */
export function differingParams(before: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(now)])].filter((name) => before[name] !== now[name]).sort();
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
  /** How a missing parameter's error says to give it (the command line's `--set name=...` by default). */
  missingHint?: (name: string) => string;
  /** Receivers of the run's notifications besides the definition's `notify:` (checked by the caller). */
  notify?: readonly string[];
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
export async function startPipeline(
  client: Client,
  loaded: LoadedPipeline,
  params: Readonly<Record<string, ParameterValue>>,
  options: StartPipelineOptions,
): Promise<StartedPipeline> {
  const { definition } = loaded;
  if (!ITEM_KEY_PATTERN.test(options.runKey)) throw new RunKeyError(options.runKey);
  const input: PipelineRunInput = {
    definition,
    source: itemSource(loaded),
    params: resolveParameters(definition.parameters, params, {
      textValues: options.textValues,
      ...(options.missingHint ? { missingHint: options.missingHint } : {}),
    }),
    runKey: options.runKey,
    ...(options.compareWithPrevious ? { compareWithPrevious: true } : {}),
    ...(options.polling ? { polling: options.polling } : {}),
    ...(options.notify && options.notify.length > 0 ? { notify: [...options.notify] } : {}),
  };
  const workflowId = pipelineRunWorkflowId(definition.name, options.runKey);
  const fingerprint = paramsFingerprint(input.params);
  const before = await client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (description) => description.runId,
      () => undefined,
    );
  /** The existing run of this key, once checked to have the same parameters (a resume may change nothing either). */
  const existing = async (): Promise<StartedPipeline> => {
    const handle = client.workflow.getHandle<typeof pipelineRunWorkflow>(workflowId);
    const memo = (await handle.describe()).memo?.[PARAMS_MEMO];
    // Runs started before fingerprints were kept have none: nothing to compare.
    if (memo && typeof memo === 'object') {
      const differing = differingParams(memo as Record<string, string>, fingerprint);
      if (differing.length > 0) throw new RunKeyConflictError(options.runKey, differing);
    }
    return { handle, workflowId, started: false };
  };
  try {
    const handle = await client.workflow.start<typeof pipelineRunWorkflow>('pipelineRunWorkflow', {
      workflowId,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: options.resume ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: ResearchPipelineKey, value: definition.name }],
      memo: { [PARAMS_MEMO]: fingerprint },
      staticSummary: `Pipeline ${definition.name}, run ${options.runKey}`,
      staticDetails: [
        `**${definition.name}**${definition.description ? `: ${definition.description}` : ''}`,
        `${
          definition.steps
            ? `steps: ${sequenceSteps(definition)
                .map((step) => `${step.id} (${step.kind})`)
                .join(', ')}`
            : `step: ${definitionKinds(definition)[0]}`
        } · concurrency ${definition.concurrency} · budget ${definition.budget_usd} USD`,
        `parameters: ${
          Object.entries(input.params)
            .map(([name, value]) => `${name}=${String(value)}`)
            .join(', ') || 'none'
        }`,
      ].join('\n\n'),
    });
    if (handle.firstExecutionRunId !== before) return { handle, workflowId, started: true };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return existing();
}
