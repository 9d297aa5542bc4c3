import type { z } from 'zod';
import type { batchTaskItem } from '../../api/schemas/batches';
import type { CreateTaskResponse, DeliverableFile, Task, TaskImage, taskSummary } from '../../api/schemas/tasks';
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

/**
 * One entry of the recent-tasks list: the clients' `DeepResearchTaskListItem`, with no metadata. The JS
 * client types `created_at` as a number, so it is milliseconds here (the task record has ISO text).
 */
export function summaryView(task: TaskRecord): z.input<typeof taskSummary> {
  return { deepresearch_id: task.id, query: task.query, status: task.status, created_at: Math.floor(task.createdAt), public: task.public };
}

/** One task of a batch listing (the clients' `BatchTaskListItem`); outputs only with `include_output`. */
export function batchTaskView(task: TaskRecord, view: ViewContext, includeOutput: boolean): z.input<typeof batchTaskItem> {
  const item: z.input<typeof batchTaskItem> = {
    deepresearch_id: task.id,
    ...(task.batchTaskId !== undefined ? { task_id: task.batchTaskId } : {}),
    query: task.query,
    status: task.status,
    created_at: iso(task.createdAt),
    ...(task.finishedAt !== undefined && task.status === 'completed' ? { completed_at: iso(task.finishedAt) } : {}),
    ...(task.status === 'failed' && task.error ? { error: task.error } : {}),
  };
  if (!includeOutput) return item;
  const full = taskView(task, view, true);
  const { output_type: outputType, output, sources, images, pdf_url: pdfUrl, deliverables, cost } = full;
  return { ...item, output_type: outputType, output, sources, images, pdf_url: pdfUrl, deliverables, cost };
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
  // Whole milliseconds: valyu-py reads these times as integers (a scaled clock has fractions).
  const createdAt = Math.floor(task.finishedAt ?? view.now);
  fields.images = files
    .filter((file) => file.kind === 'image')
    .map((file): TaskImage => ({
      image_id: file.id,
      // The asset id under the name deliverables use too, so `images[0].id` fetches the image as `image_id` does.
      id: file.id,
      image_type: file.type,
      deepresearch_id: task.id,
      title: file.title,
      image_url: assetUrl(view.origin, task, file.id),
      s3_key: s3Key(task, file),
      created_at: createdAt,
      ...(file.type === 'chart' ? { chart_type: 'bar' } : {}),
    }));
  const pdf = outputs.files.get(PDF_ASSET_ID);
  if (pdf) fields.pdf_url = assetUrl(view.origin, task, pdf.id);
  if (task.config.deliverables.length > 0)
    fields.deliverables = files.filter((file) => file.kind === 'deliverable').map((file) => deliverableView(task, file, view.origin, createdAt));
  return fields;
}

/** Where the service would keep the file (both clients show an `s3_key`); only a label here. */
function s3Key(task: TaskRecord, file: TaskFile): string {
  return `deepresearch/${task.id}/${file.filename}`;
}

/** A generated deliverable: `request` is what was asked for, `title` the file's name. */
function deliverableView(task: TaskRecord, file: TaskFile, origin: string, createdAt: number): DeliverableFile {
  return {
    id: file.id,
    request: file.description ?? file.title,
    type: file.type,
    status: 'completed',
    title: file.filename,
    ...(file.description ? { description: file.description } : {}),
    url: assetUrl(origin, task, file.id),
    s3_key: s3Key(task, file),
    created_at: createdAt,
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
  const messages: { at: number; message: Record<string, unknown> }[] = [{ at: task.createdAt, message: { role: 'user', type: 'query', content: task.query } }];
  for (const entry of task.history) {
    messages.push({
      at: entry.respondedAt,
      message: { role: 'user', type: 'checkpoint_response', checkpoint: entry.type, content: JSON.stringify(entry.response) },
    });
  }
  for (const instruction of task.instructions) {
    messages.push({ at: instruction.at, message: { role: 'user', type: 'instruction', content: instruction.text } });
    messages.push({
      at: instruction.at,
      message: {
        role: 'assistant',
        type: 'acknowledgement',
        content: `Noted; the remaining research and the report will take this into account: ${instruction.text}`,
      },
    });
  }
  if (task.status === 'running') {
    const work = workAt(task, now);
    messages.push({
      at: now,
      message: {
        role: 'assistant',
        type: 'progress',
        content: `Step ${currentStep(task.config.mode, work, task.durationMs)} of ${totalSteps(task.config.mode)}: ${phaseOf(task, work)}`,
      },
    });
  } else if (task.status === 'completed' && task.finishedAt !== undefined) {
    messages.push({ at: task.finishedAt, message: { role: 'assistant', type: 'final', content: 'The report is ready.' } });
  }
  return messages.sort((a, b) => a.at - b.at).map(({ at, message }) => ({ ...message, created_at: iso(at) }));
}
