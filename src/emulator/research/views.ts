import type { CreateTaskResponse, Task, TaskSummary } from '../../api/schemas/tasks';
import { workAt, type TaskRecord } from './task-record';
import { currentStep, inWritingPhase, totalSteps, WRITING_PHASE_START } from './timing';
import { hitlHistoryView, interactionView } from './checkpoints';
import type { OutputCache } from './outputs';
import { PDF_ASSET_ID, type TaskFile } from './task-files';

/** What rendering a task needs besides the task. */
export interface ViewContext {
  now: number;
  /** The emulator's origin, for absolute asset URLs. */
  origin: string;
  checkpointTimeoutMs: number;
  outputs: OutputCache;
}

/** An ISO 8601 timestamp of an emulator time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The server origin from `ctx.baseUrl()`, whether or not it ends in `/v1`. */
export function originOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The absolute URL of a task's asset; the token lets a holder of the link fetch it. */
export function assetUrl(origin: string, task: TaskRecord, assetId: string): string {
  return `${origin}/v1/deepresearch/tasks/${encodeURIComponent(task.id)}/assets/${encodeURIComponent(assetId)}?token=${task.assetToken}`;
}

/** The create response (spec 2.5); the webhook secret is shown here and nowhere else. */
export function createdView(task: TaskRecord): CreateTaskResponse {
  return {
    deepresearch_id: task.id,
    status: task.status === 'running' ? 'running' : 'queued',
    mode: task.config.mode,
    created_at: iso(task.createdAt),
    ...(task.metadata ? { metadata: task.metadata } : {}),
    public: task.public,
    ...(task.webhookSecret ? { webhook_secret: task.webhookSecret } : {}),
    ...(task.status === 'queued' ? { message: 'All research slots are busy; the task is queued and starts when one frees up.' } : {}),
  };
}

/** One entry of the recent-tasks list. */
export function summaryView(task: TaskRecord): TaskSummary {
  return {
    deepresearch_id: task.id,
    status: task.status,
    query: task.query,
    mode: task.config.mode,
    created_at: iso(task.createdAt),
    ...(task.metadata ? { metadata: task.metadata } : {}),
    ...(task.batchId ? { batch_id: task.batchId, batch_task_id: task.batchTaskId } : {}),
    ...(task.finishedAt !== undefined && task.status === 'completed' ? { completed_at: iso(task.finishedAt) } : {}),
  };
}

/** The status response (spec 2.6); `includeOutput` false leaves out outputs (batch listings). */
export function taskView(task: TaskRecord, view: ViewContext, includeOutput = true): Task {
  const body: Task = {
    deepresearch_id: task.id,
    status: task.status,
    query: task.query,
    mode: task.config.mode,
    created_at: iso(task.createdAt),
    output_formats: [...task.config.outputFormats],
    public: task.public,
    tools: { ...task.config.tools },
    cost: task.costUsd,
    ...(task.metadata ? { metadata: task.metadata } : {}),
    ...(task.batchId ? { batch_id: task.batchId, batch_task_id: task.batchTaskId } : {}),
    ...(task.config.workflow ? { workflow_id: task.config.workflow.id, workflow_version: task.config.workflow.version } : {}),
  };
  if (task.config.hitl) {
    body.hitl_config = task.config.hitl;
    body.hitl_history = hitlHistoryView(task);
  }
  const interaction = interactionView(task, view.checkpointTimeoutMs);
  if (interaction) body.interaction = interaction;
  if (task.status === 'running') {
    const work = workAt(task, view.now);
    body.progress = { current_step: currentStep(task.config.mode, work, task.durationMs), total_steps: totalSteps(task.config.mode) };
  }
  if (task.status === 'running' || task.status === 'completed') body.messages = messagesView(task, view.now);
  if (task.status === 'failed' && task.error) body.error = task.error;
  if (task.status === 'completed' && task.finishedAt !== undefined) {
    body.completed_at = iso(task.finishedAt);
    body.cost_breakdown = task.costBreakdown;
  }
  if (includeOutput && (task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled')) {
    Object.assign(body, outputFields(task, view));
  }
  return body;
}

function outputFields(task: TaskRecord, view: ViewContext): Partial<Task> {
  const outputs = view.outputs.get(task);
  const fields: Partial<Task> = { sources: outputs.sources };
  if (outputs.output !== undefined) fields.output = outputs.output;
  if (task.status !== 'completed') return fields;
  fields.output_type = outputs.outputType;
  const files = [...outputs.files.values()];
  fields.images = files.filter((file) => file.kind === 'image').map((file) => ({
    id: file.id, type: file.type, title: file.title, url: assetUrl(view.origin, task, file.id), content_type: file.contentType, width: file.width, height: file.height,
  }));
  const pdf = outputs.files.get(PDF_ASSET_ID);
  if (pdf) fields.pdf_url = assetUrl(view.origin, task, pdf.id);
  if (task.config.deliverables.length > 0) fields.deliverables = files.filter((file) => file.kind === 'deliverable').map((file) => deliverableView(task, file, view.origin));
  return fields;
}

function deliverableView(task: TaskRecord, file: TaskFile, origin: string): NonNullable<Task['deliverables']>[number] {
  return {
    id: file.id, type: file.type, title: file.title, description: file.description, filename: file.filename,
    url: assetUrl(origin, task, file.id), size: file.bytes().length, content_type: file.contentType, status: 'completed',
  };
}

function phaseOf(task: TaskRecord, work: number): string {
  const fraction = work / task.durationMs;
  if (inWritingPhase(work, task.durationMs)) return 'writing the report';
  if (fraction < 0.1) return 'planning the research';
  if (fraction < 0.45) return 'searching sources';
  return fraction < WRITING_PHASE_START ? 'analysing findings' : 'writing the report';
}

function messagesView(task: TaskRecord, now: number): Record<string, unknown>[] {
  const messages: { at: number; message: Record<string, unknown> }[] = [
    { at: task.createdAt, message: { role: 'user', type: 'query', content: task.query } },
  ];
  for (const entry of task.history) {
    messages.push({ at: entry.respondedAt, message: { role: 'user', type: 'checkpoint_response', checkpoint: entry.type, content: JSON.stringify(entry.response) } });
  }
  for (const instruction of task.instructions) {
    messages.push({ at: instruction.at, message: { role: 'user', type: 'instruction', content: instruction.text } });
    messages.push({ at: instruction.at, message: { role: 'assistant', type: 'acknowledgement', content: `Noted; the remaining research and the report will take this into account: ${instruction.text}` } });
  }
  if (task.status === 'running') {
    const work = workAt(task, now);
    messages.push({ at: now, message: { role: 'assistant', type: 'progress', content: `Step ${currentStep(task.config.mode, work, task.durationMs)} of ${totalSteps(task.config.mode)}: ${phaseOf(task, work)}` } });
  } else if (task.status === 'completed' && task.finishedAt !== undefined) {
    messages.push({ at: task.finishedAt, message: { role: 'assistant', type: 'final', content: 'The report is ready.' } });
  }
  return messages.sort((a, b) => a.at - b.at).map(({ at, message }) => ({ ...message, created_at: iso(at) }));
}
