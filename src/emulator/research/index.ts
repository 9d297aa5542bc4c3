/**
 * DeepResearch tasks, checkpoints, batches, webhooks and assets of the emulator.
 *
 * Timing: a task needs its mode's work time (fast 3, standard 15, heavy 45, max 90 emulator minutes,
 * +/- `durationJitter`); progress is `floor(work / duration * maxSteps) + 1`. Checkpoints fall at 2%, 10%,
 * 40% and 70% of the work (planning_questions, plan_review, source_review, outline_review); the writing
 * phase starts at 80%, after which `update` is refused. Time waiting in the queue or at a checkpoint
 * does not count as work; a checkpoint frees its running slot, and an answer queues the task again.
 *
 * Webhooks (on completion or failure only; cancelled tasks send none): task bodies are
 * `{ event: 'task.completed' | 'task.failed', deepresearch_id, status, mode, created_at, completed_at |
 * failed_at, error?, cost, metadata?, timestamp, delivery_id }`; batch bodies are `{ event:
 * 'batch.completed', batch_id, status: 'completed' | 'completed_with_errors', counts, cost, name?,
 * metadata?, created_at, completed_at, timestamp, delivery_id }`. Batch tasks send no task webhooks.
 */
import type { EmulatorContext, EmulatorRoute } from '../types';
import { BatchService } from './batch-service';
import { batchRoutes } from './batch-routes';
import { TaskLifecycle, type StatusListener } from './lifecycle';
import { researchOptions, type ResearchOptionsInput } from './options';
import type { TaskRecord } from './task-record';
import { taskRoutes } from './task-routes';
import { TaskService } from './task-service';
import { iso } from './views';
import { WebhookSender } from './webhook-sender';

export { researchOptions, webhookOptions, type ResearchOptions, type ResearchOptionsInput, type WebhookOptions } from './options';
export { CHECKPOINT_POSITIONS, WRITING_PHASE_START } from './timing';

/** The DeepResearch part of the emulator: its routes and a `close()` that stops its timers and webhooks. */
export interface ResearchService {
  readonly routes: EmulatorRoute[];
  close(): void;
}

/**
 * Builds tasks, checkpoints, batches, webhooks and assets over `ctx`. Options are validated here
 * (a `ZodError` names the bad field); every default applies to what is left out.
 */
export function createResearchService(ctx: EmulatorContext, options: ResearchOptionsInput = {}): ResearchService {
  const settings = researchOptions.parse(options);
  const webhooks = new WebhookSender(ctx, settings.webhooks);
  // The lifecycle exists before the batches that listen to it, so listeners are attached afterwards.
  const listeners: StatusListener[] = [];
  const lifecycle = new TaskLifecycle(ctx.clock, ctx.random, settings, (task, from, at) => {
    for (const listener of listeners) listener(task, from, at);
  });
  const tasks = new TaskService(ctx, settings, lifecycle);
  const batches = new BatchService(ctx, settings, tasks, webhooks);
  listeners.push(
    (task, from, at) => batches.onTaskStatus(task, from, at),
    (task, _from, at) => {
      const secret = task.webhookSecret;
      if ((task.status === 'completed' || task.status === 'failed') && task.config.webhookUrl && secret) {
        webhooks.send({ kind: 'task', id: task.id, url: task.config.webhookUrl, secret, body: taskWebhookBody(task, at) });
      }
    },
  );
  return {
    routes: [...taskRoutes(tasks), ...batchRoutes(batches)],
    close() {
      lifecycle.close();
      webhooks.close();
    },
  };
}

/**
 * The task webhook body: a hint carrying ids and the outcome, not the output (fetch the task for that).
 * `delivery_id` is added by the sender and stays the same across retries and duplicates.
 */
export function taskWebhookBody(task: TaskRecord, at: number): Record<string, unknown> {
  return {
    event: task.status === 'completed' ? 'task.completed' : 'task.failed',
    deepresearch_id: task.id,
    status: task.status,
    mode: task.config.mode,
    created_at: iso(task.createdAt),
    ...(task.status === 'completed' ? { completed_at: iso(at) } : { failed_at: iso(at), error: task.error }),
    cost: task.costUsd,
    ...(task.metadata ? { metadata: task.metadata } : {}),
    timestamp: iso(at),
  };
}
