import type { Clock } from '../clock';
import type { Random } from '../types';
import type { TaskStatus } from '../../api/schemas/tasks';
import type { CheckpointResponse } from '../../api/schemas/checkpoints';
import { CHECKPOINT_POSITIONS } from './timing';
import { EventScheduler, type ScheduledEvent } from './scheduler';
import { RunQueue } from './run-queue';
import { TaskStore } from './store';
import { workAt, type TaskRecord } from './task-record';

/** Called after every status change, with the instant it happened (emulator time). */
export type StatusListener = (task: TaskRecord, from: TaskStatus | undefined, at: number) => void;

type Milestone = 'checkpoint' | 'fail' | 'complete';

const FAILURE_REASONS = [
  'The research agent exceeded its tool-call budget before it could finish the report',
  'The language model provider returned repeated errors; the task could not be completed',
  'Source retrieval failed for every search in the final research round',
];

/**
 * The task state machine (spec 3.1): admission against a capacity of running slots, progress through
 * work time, checkpoints, pause on timeout, resume after an answer, completion, failure and cancellation.
 * Time only moves through `sync()` and the scheduler, both driven by the emulator clock.
 */
export class TaskLifecycle {
  readonly store = new TaskStore();
  readonly #queue = new RunQueue();
  readonly #scheduler: EventScheduler;
  #running = 0;

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly settings: { capacity: number; checkpointTimeoutMs: number },
    private readonly onStatus: StatusListener,
  ) {
    this.#scheduler = new EventScheduler(clock, (event) => this.#onEvent(event));
  }

  /** Applies everything due by now and returns now; every request calls this first. */
  sync(): number {
    const now = this.clock.now();
    this.#scheduler.runDue(now);
    return now;
  }

  /** Adds a new `queued` task; with `startIfFree` it starts at once when a slot is free. */
  admit(task: TaskRecord, at: number, startIfFree: boolean): void {
    this.store.add(task);
    this.onStatus(task, undefined, at);
    this.#queue.pushFresh(task.id);
    if (startIfFree) this.fillCapacity(at);
  }

  /** Starts queued tasks while running slots are free. */
  fillCapacity(at: number): void {
    while (this.#running < this.settings.capacity) {
      const id = this.#queue.shift();
      if (id === undefined) return;
      const task = this.store.get(id);
      if (task?.status === 'queued') this.#start(task, at);
    }
  }

  /** Records a checkpoint answer and queues the task to resume. */
  answer(task: TaskRecord, response: CheckpointResponse, at: number): void {
    const interaction = task.interaction;
    if (!interaction) return;
    task.history.push({
      interactionId: interaction.id,
      type: interaction.type,
      createdAt: interaction.createdAt,
      respondedAt: at,
      afterPause: task.status === 'paused',
      response,
    });
    task.interaction = undefined;
    task.checkpointsDone += 1;
    this.#setStatus(task, 'queued', at);
    this.#queue.pushResumed(task.id);
    this.fillCapacity(at);
  }

  /** Cancels a queued or running task, keeping the work done so far for its partial output. */
  cancel(task: TaskRecord, at: number): void {
    this.#stopRunning(task, at);
    task.finishedAt = at;
    this.#setStatus(task, 'cancelled', at);
    this.fillCapacity(at);
  }

  /** Removes a finished task. */
  delete(task: TaskRecord): void {
    this.store.delete(task);
  }

  /** Number of running tasks. */
  get running(): number {
    return this.#running;
  }

  /** Stops all timers. */
  close(): void {
    this.#scheduler.close();
  }

  #start(task: TaskRecord, at: number): void {
    task.runningSince = at;
    this.#running += 1;
    this.#setStatus(task, 'running', at);
    const work = task.workMs;
    let next: { work: number; kind: Milestone } = { work: task.durationMs, kind: 'complete' };
    const checkpoint = task.config.checkpoints[task.checkpointsDone];
    if (checkpoint !== undefined) {
      next = { work: Math.max(work, CHECKPOINT_POSITIONS[checkpoint] * task.durationMs), kind: 'checkpoint' };
    }
    if (task.failAtWorkMs !== undefined && task.failAtWorkMs < next.work) next = { work: Math.max(work, task.failAtWorkMs), kind: 'fail' };
    this.#scheduler.schedule({ at: at + (next.work - work), taskId: task.id, generation: task.generation, kind: next.kind });
  }

  #onEvent(event: ScheduledEvent): void {
    const task = this.store.get(event.taskId);
    if (!task || task.generation !== event.generation) return;
    const at = event.at;
    if (event.kind === 'pause') {
      this.#setStatus(task, 'paused', at);
      return;
    }
    this.#stopRunning(task, at);
    if (event.kind === 'checkpoint') {
      const type = task.config.checkpoints[task.checkpointsDone];
      if (type === undefined) return;
      task.interaction = { id: `int_${this.random.hex(16)}`, type, createdAt: at };
      this.#setStatus(task, 'awaiting_input', at);
      this.#scheduler.schedule({ at: at + this.settings.checkpointTimeoutMs, taskId: task.id, generation: task.generation, kind: 'pause' });
    } else if (event.kind === 'fail') {
      task.finishedAt = at;
      task.error = FAILURE_REASONS[task.seed % FAILURE_REASONS.length];
      this.#setStatus(task, 'failed', at);
    } else {
      task.finishedAt = at;
      this.#setStatus(task, 'completed', at);
    }
    this.fillCapacity(at);
  }

  #stopRunning(task: TaskRecord, at: number): void {
    if (task.status !== 'running') return;
    task.workMs = workAt(task, at);
    task.runningSince = undefined;
    this.#running -= 1;
  }

  #setStatus(task: TaskRecord, to: TaskStatus, at: number): void {
    const from = task.status;
    task.status = to;
    task.generation += 1;
    this.onStatus(task, from, at);
  }
}
