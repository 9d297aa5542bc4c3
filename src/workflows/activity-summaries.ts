/**
 * One-line summaries of the project's activities, from their input: the Temporal UI shows them on each
 * activity in a workflow's timeline and event history, so an operator sees "status of dr_123" instead
 * of a bare activity type. Pure: the workflow interceptor (interceptors.ts) attaches them.
 */
const MAX_SUMMARY = 120;

const field = (input: unknown, name: string): unknown => (typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined);
const text = (input: unknown, name: string): string | undefined => {
  const value = field(input, name);
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
};
const quoted = (value: string | undefined, room = 60): string => {
  if (!value) return '';
  const line = value.replace(/\s+/g, ' ').trim();
  return ` "${line.length > room ? `${line.slice(0, room - 1)}…` : line}"`;
};
const task = (input: unknown): string => text(input, 'deepresearchId') ?? 'the task';
const batch = (input: unknown): string => text(input, 'batchId') ?? 'the batch';
const count = (value: unknown): number | undefined => (Array.isArray(value) ? value.length : undefined);

const summaries: Record<string, (input: unknown) => string> = {
  createResearchTask: (input) => {
    const request = field(input, 'request');
    return `create a DeepResearch task${text(request, 'mode') ? ` (${text(request, 'mode')})` : ''}:${quoted(text(request, 'query') ?? text(request, 'input'))}`;
  },
  getResearchTask: (input) => `status of ${task(input)}`,
  findResearchTask: () => 'look for the task an unanswered create may have made',
  cancelResearchTask: (input) => `cancel ${task(input)} at the service`,
  deleteResearchTask: (input) => `delete ${task(input)} at the service`,
  answerResearchCheckpoint: (input) => `answer checkpoint ${text(input, 'interactionId') ?? ''} of ${task(input)}`.replace('  ', ' '),
  addResearchInstruction: (input) => `send an instruction to ${task(input)}:${quoted(text(input, 'instruction'))}`,
  storeResearchOutputs: (input) => `store the report, sources and files of ${task(input)}`,
  storeEndedResearchOutputs: (input) => `read ${task(input)}, which a webhook says has ended, and store its report, sources and files`,
  createResearchBatch: (input) => `create a service batch${quoted(text(field(input, 'request'), 'name'))}`,
  addResearchBatchTasks: (input) => {
    const added = count(field(input, 'tasks')) || (field(field(input, 'tasksRef'), 'limit') as number | undefined);
    return `add ${added ?? 'the'} tasks to ${batch(input)}`;
  },
  getResearchBatch: (input) => `status of ${batch(input)}`,
  cancelResearchBatch: (input) => `cancel ${batch(input)} at the service`,
  collectResearchBatchPage: (input) => `collect page ${(Number(field(input, 'pageIndex') ?? 0) || 0) + 1} of ${batch(input)}'s results`,
  checkPipelineKeys: (input) => `check the item keys of ${text(field(input, 'definition'), 'name') ?? 'the pipeline'} for duplicates before spending`,
  lookItemWorkflow: (input) => `look at adopted item workflow ${text(input, 'workflowId') ?? '?'}`,
  readPipelinePage: (input) => `read up to ${text(input, 'limit') ?? 'a page of'} items of ${text(field(input, 'definition'), 'name') ?? 'the pipeline'}`,
  runPipelineItem: (input) => `${text(field(input, 'request'), 'kind') ?? 'run'} for item ${text(input, 'key') ?? '?'}`,
  runPipelineItems: (input) => {
    const items = field(input, 'items');
    const list = Array.isArray(items) ? items : [];
    const first = text(list[0], 'key') ?? '?';
    const last = text(list[list.length - 1], 'key') ?? '?';
    const kind = text(field(list[0], 'request'), 'kind') ?? 'run';
    return list.length > 1 ? `${kind} for ${list.length} items (${first} … ${last})` : `${kind} for item ${first}`;
  },
  recordPipelineItems: (input) => `record ${count(field(input, 'records')) ?? 'the'} finished items`,
  // The receiver's host only: a URL's path or query may carry a token.
  notifyRun: (input) =>
    `notify ${/^[a-z]+:\/\/([^/?#@]*@)?([^/?#]+)/i.exec(text(input, 'url') ?? '')?.[2] ?? 'a receiver'} of ${text(field(input, 'event'), 'type') ?? 'the run'}`,
  sinkPipelineRows: (input) => `upsert the rows of run ${text(input, 'runKey') ?? '?'} into its SQL tables`,
  sinkPipelineItemRows: (input) =>
    `upsert the rows of ${count(field(input, 'items')) ?? 'the'} settled items of run ${text(input, 'runKey') ?? '?'} into its SQL tables`,
  planPipelineStep: (input) => `plan step ${(Number(field(input, 'step') ?? 0) || 0) + 1} for item ${text(field(input, 'item'), 'key') ?? '?'}`,
  recordPipelineStep: (input) =>
    `record step ${text(field(input, 'record'), 'id') ?? '?'} (${text(field(input, 'record'), 'status') ?? '?'}) for item ${text(input, 'itemKey') ?? '?'}`,
  writePipelineOutputs: (input) =>
    `write the outputs of ${text(field(input, 'definition'), 'name') ?? 'the pipeline'} run ${text(input, 'runKey') ?? ''}`.trim(),
  preparePipelineSynthesis: () => 'prepare the synthesis over the collected results',
  preparePipelineBatch: (input) => `prepare service batch ${(Number(field(input, 'round') ?? 0) || 0) + 1} within ${text(input, 'budgetLeftUsd') ?? '?'} USD`,
  recordPipelineBatch: (input) => `record the tasks of service batch ${(Number(field(input, 'round') ?? 0) || 0) + 1}`,
};

/** The summary of one activity call, or undefined for an activity this module does not know. */
export function activitySummary(activityType: string, input: unknown): string | undefined {
  const summarise = summaries[activityType];
  if (!summarise) return undefined;
  const summary = summarise(input);
  return summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary;
}

/** The activity types that have a summary (a test checks every registered activity has one). */
export const SUMMARISED_ACTIVITIES: readonly string[] = Object.keys(summaries);
