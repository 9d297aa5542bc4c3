import { z } from 'zod';
import { respondRequest } from '../../api/schemas/checkpoints';
import {
  createTaskRequest,
  setTaskPublicRequest,
  updateTaskRequest,
  type CreateTaskResponse,
  type listTasksResponse,
  type SetTaskPublicResponse,
  type Task,
} from '../../api/schemas/tasks';
import type { RespondResponse } from '../../api/schemas/checkpoints';
import type { TaskActionResponse } from '../../api/schemas/common';
import { generateWebhookSecret } from '../../api/webhooks';
import { randomUuid } from '../random';
import { EmulatorHttpError, type Account, type EmulatorContext } from '../types';
import { describeIssues, liteAsStandard, parseRequest } from '../validation';
import { resolveWorkflowForTask } from '../workflows-beta';
import { parseCheckpointResponse, wrongAnswerText } from './checkpoints';
import type { TaskLifecycle } from './lifecycle';
import type { ResearchOptions } from './options';
import { OutputCache } from './outputs';
import { configFromRequest, newTaskRecord, priceOf, type WorkflowRun } from './task-factory';
import { workAt, type TaskRecord } from './task-record';
import { currentStep, inWritingPhase, totalSteps, writingPhaseStep } from './timing';
import { createdView, originOf, summaryView, taskView, type ViewContext } from './views';
import { isRecord } from '../../shared/guards';

const listQuery = z.looseObject({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .optional(),
});

/** The DeepResearch task operations behind the routes; each first catches up on due transitions. */
export class TaskService {
  readonly outputs: OutputCache;

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly options: ResearchOptions,
    readonly lifecycle: TaskLifecycle,
  ) {
    this.outputs = new OutputCache(options.outputCacheSize);
  }

  /** `POST /v1/deepresearch/tasks`: validates, charges the price, and starts or queues the task. */
  create(account: Account, body: unknown): CreateTaskResponse {
    const now = this.lifecycle.sync();
    const request = parseRequest(createTaskRequest, liteAsStandard(body));
    let workflow: WorkflowRun | undefined;
    if (request.workflow_id !== undefined) {
      const resolved = resolveWorkflowForTask(account, request.workflow_id, request.workflow_params ?? {}, request.workflow_version);
      workflow = { id: request.workflow_id, version: resolved.version, resolved: resolved.resolved };
    }
    request.previous_reports?.forEach((id, index) => {
      const previous = this.lifecycle.store.get(id);
      if (!previous || previous.organization !== account.organization) {
        throw EmulatorHttpError.of(400, `Invalid request parameters: previous_reports[${index}]: no task ${id} in this organisation`);
      }
    });
    const { query, config } = configFromRequest(request, workflow);
    const price = priceOf(config, this.options);
    this.ctx.accounts.charge(account, price.costUsd, `deepresearch task (${config.mode})`);
    const task = newTaskRecord(
      {
        id: randomUuid(this.ctx.random),
        organization: account.organization,
        query,
        config,
        metadata: request.metadata,
        costUsd: price.costUsd,
        costBreakdown: price.breakdown,
        webhookSecret: config.webhookUrl ? generateWebhookSecret() : undefined,
      },
      this.ctx.random,
      this.options,
      now,
    );
    this.lifecycle.admit(task, now, true);
    this.ctx.stats.recordTaskCreated(request.metadata);
    return createdView(task);
  }

  /** `GET .../tasks/:id` and `.../status`. */
  get(account: Account, id: string): Task {
    this.lifecycle.sync();
    return taskView(this.lifecycle.store.require(id, account.organization), this.view());
  }

  /** `GET /v1/deepresearch/list[?limit=N]`: newest first; without `limit`, every task (as the Python client documents it). */
  list(account: Account, query: URLSearchParams): z.input<typeof listTasksResponse> {
    this.lifecycle.sync();
    const { limit = Number.POSITIVE_INFINITY } = parseRequest(listQuery, Object.fromEntries(query));
    return this.lifecycle.store.recent(account.organization, limit).map(summaryView);
  }

  /** `POST .../update`: a follow-up instruction, only while running and before the writing phase. */
  update(account: Account, id: string, body: unknown): TaskActionResponse {
    const now = this.lifecycle.sync();
    const task = this.lifecycle.store.require(id, account.organization);
    const { instruction } = parseRequest(updateTaskRequest, body);
    if (task.status !== 'running') {
      throw EmulatorHttpError.of(409, `Task is ${task.status}; follow-up instructions are accepted only while it is running`);
    }
    const work = workAt(task, now);
    const step = currentStep(task.config.mode, work, task.durationMs);
    if (inWritingPhase(work, task.durationMs)) {
      throw EmulatorHttpError.of(
        409,
        `Task is in its writing phase (step ${step} of ${totalSteps(task.config.mode)}; writing starts at step ${writingPhaseStep(task.config.mode)}); follow-up instructions are accepted only before writing begins`,
      );
    }
    task.instructions.push({ text: instruction, at: now, step });
    return { success: true, message: 'Instruction added; the research agent will take it into account', deepresearch_id: task.id };
  }

  /** `POST .../respond`: answers the current checkpoint of an `awaiting_input` or `paused` task. */
  respond(account: Account, id: string, body: unknown): RespondResponse {
    const now = this.lifecycle.sync();
    const task = this.lifecycle.store.require(id, account.organization);
    const current = task.interaction;
    const parsed = respondRequest.safeParse(body);
    if (!parsed.success) {
      // A well-formed request whose answer has the wrong shape gets its checkpoint type's rule, not a union error.
      if (current && isRecord(body) && typeof body.interaction_id === 'string') this.#checkAnswer(current.type, body.response);
      throw EmulatorHttpError.of(400, `Invalid request parameters: ${describeIssues(parsed.error.issues)}`);
    }
    if (!current || (task.status !== 'awaiting_input' && task.status !== 'paused')) {
      throw EmulatorHttpError.of(409, `Task is ${task.status}; checkpoint answers are accepted only while it is awaiting_input or paused`);
    }
    const request = parsed.data;
    if (request.interaction_id !== current.id) {
      throw EmulatorHttpError.of(
        409,
        `interaction_id ${request.interaction_id} is not the task's current checkpoint (current: ${current.id}, ${current.type})`,
      );
    }
    const answer = this.#checkAnswer(current.type, request.response);
    this.lifecycle.answer(task, answer, now);
    return {
      success: true,
      message: `Checkpoint ${current.type} answered; the task resumes when a research slot is free`,
      deepresearch_id: task.id,
      status: task.status,
    };
  }

  /** `POST .../cancel`: only queued or running tasks. */
  cancel(account: Account, id: string): TaskActionResponse {
    const now = this.lifecycle.sync();
    const task = this.lifecycle.store.require(id, account.organization);
    if (task.status !== 'queued' && task.status !== 'running') {
      throw EmulatorHttpError.of(409, `Task is ${task.status}; only queued or running tasks can be cancelled`);
    }
    this.lifecycle.cancel(task, now);
    return { success: true, message: 'Task cancelled', deepresearch_id: task.id };
  }

  /** `DELETE .../delete`: only completed, failed or cancelled tasks. */
  delete(account: Account, id: string): TaskActionResponse {
    this.lifecycle.sync();
    const task = this.lifecycle.store.require(id, account.organization);
    if (task.status !== 'completed' && task.status !== 'failed' && task.status !== 'cancelled') {
      throw EmulatorHttpError.of(409, `Task is ${task.status}; only completed, failed or cancelled tasks can be deleted (cancel it first)`);
    }
    this.lifecycle.delete(task);
    return { success: true, message: 'Task deleted', deepresearch_id: task.id };
  }

  /** `POST .../public`. */
  setPublic(account: Account, id: string, body: unknown): SetTaskPublicResponse {
    this.lifecycle.sync();
    const task = this.lifecycle.store.require(id, account.organization);
    task.public = parseRequest(setTaskPublicRequest, body).public;
    return { success: true, message: task.public ? 'Task is now public' : 'Task is now private', deepresearch_id: task.id, public: task.public };
  }

  /** What views need right now. */
  view(): ViewContext {
    return { now: this.ctx.clock.now(), origin: originOf(this.ctx.baseUrl()), checkpointTimeoutMs: this.options.checkpointTimeoutMs, outputs: this.outputs };
  }

  /** A task by id regardless of owner (asset links carry their own token). */
  find(id: string): TaskRecord | undefined {
    this.lifecycle.sync();
    return this.lifecycle.store.get(id);
  }

  #checkAnswer(type: NonNullable<TaskRecord['interaction']>['type'], response: unknown) {
    const result = parseCheckpointResponse(type, response);
    if (!result.ok) throw EmulatorHttpError.of(400, wrongAnswerText(type, describeIssues(result.error.issues, 'response')));
    return result.value;
  }
}
