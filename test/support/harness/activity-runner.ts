import { CancelledFailure, type Payload } from '@temporalio/common';
import { isAbortError } from '@temporalio/common/lib/type-helpers';
import { coresdk } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { TimerHandle } from '../../../src/emulator/clock';
import { activityInfo, type ActivityOwner, type ActivityRequest } from './activity-request';
import { activityCancelled, activityFailed, RetryState } from './core-failures';
import type { FakeClock } from './fake-clock';
import { activityErrorToFailure, fromPayloads, toPayload } from './payloads';
import { QuietLogger } from './quiet-logger';
import { decideRetry } from './retry-policy';

type ActivityResolution = coresdk.activity_result.IActivityResolution;
type ActivityFn = (...args: unknown[]) => Promise<unknown>;
const { ActivityCancellationType } = coresdk.workflow_commands;

/** What the runner needs from the harness. */
export interface ActivityRunnerHost {
  readonly clock: FakeClock;
  /** Registers real-time work the harness must await before it moves the fake clock. */
  track(work: Promise<unknown>, description: string): void;
  /** Delivers an activity's final outcome to the run that scheduled it. */
  resolve(owner: ActivityOwner, request: ActivityRequest, resolution: ActivityResolution): void;
  /** Records a payload crossing the workflow boundary (an activity result). */
  recordPayload(owner: ActivityOwner, payload: Payload): void;
  /** Stops the harness with an error that is a test mistake, not workflow behaviour. */
  fail(error: Error): void;
}

interface ActivityState {
  readonly owner: ActivityOwner;
  readonly request: ActivityRequest;
  readonly fn: ActivityFn;
  readonly scheduledAtMs: number;
  attempt: number;
  phase: 'running' | 'backoff' | 'done';
  environment?: MockActivityEnvironment;
  backoff?: TimerHandle;
  cancelRequested: boolean;
  heartbeatDetails?: unknown;
}

/**
 * Runs scheduled activities in-process through the SDK's MockActivityEnvironment (so
 * `Context.current()`, heartbeats and cancellation behave as in a worker), applying the activity's
 * retry policy on the fake clock and Core's cancellation types.
 */
export class ActivityRunner {
  private readonly functions: ReadonlyMap<string, ActivityFn>;
  private readonly states = new Map<string, ActivityState>();
  /** Attempts still executing, including ones whose result no longer matters (abandoned). */
  private readonly running = new Map<MockActivityEnvironment, ActivityOwner>();

  constructor(
    private readonly host: ActivityRunnerHost,
    activities: object,
  ) {
    // Own enumerable properties only, like the Worker's `new Map(Object.entries(activities))`.
    this.functions = new Map(
      Object.entries(activities).filter((entry): entry is [string, ActivityFn] => typeof entry[1] === 'function'),
    );
  }

  /** Starts the first attempt of a scheduled activity. */
  schedule(owner: ActivityOwner, request: ActivityRequest): void {
    const fn = this.functions.get(request.activityType) ?? this.functions.get('default');
    if (!fn) {
      // A real worker retries this forever; in a test it is always a missing registration.
      this.host.fail(
        new Error(
          `Workflow ${owner.workflowId} scheduled activity '${request.activityType}', which is not registered ` +
            `in the harness; registered: ${JSON.stringify([...this.functions.keys()])}`,
        ),
      );
      return;
    }
    const state: ActivityState = {
      owner,
      request,
      fn,
      scheduledAtMs: this.host.clock.now(),
      attempt: 1,
      phase: 'running',
      cancelRequested: false,
    };
    this.states.set(key(owner, request.seq), state);
    this.startAttempt(state);
  }

  /** Applies a requestCancel(Local)Activity command according to the activity's cancellation type. */
  requestCancel(owner: ActivityOwner, seq: number): void {
    const state = this.states.get(key(owner, seq));
    if (!state || state.phase === 'done') return;
    if (state.phase === 'backoff') {
      state.backoff?.cancel();
      this.finish(state, { cancelled: { failure: activityCancelled(state.request) } });
      return;
    }
    switch (state.request.cancellationType) {
      case ActivityCancellationType.ABANDON:
        this.finish(state, { cancelled: { failure: activityCancelled(state.request) } });
        return;
      case ActivityCancellationType.WAIT_CANCELLATION_COMPLETED:
        state.cancelRequested = true;
        state.environment?.cancel();
        return;
      default:
        state.cancelRequested = true;
        state.environment?.cancel();
        this.finish(state, { cancelled: { failure: activityCancelled(state.request) } });
    }
  }

  /**
   * Forgets the activities of a closed run: pending retries never start, late results are dropped,
   * and running attempts are cancelled with reason NOT_FOUND, as a worker cancels an activity whose
   * heartbeat finds its workflow gone.
   */
  abandon(owner: ActivityOwner): void {
    for (const state of this.states.values()) {
      if (state.owner !== owner) continue;
      state.backoff?.cancel();
      state.phase = 'done';
      this.states.delete(key(owner, state.request.seq));
    }
    for (const [environment, attemptOwner] of this.running) {
      if (attemptOwner === owner) environment.cancel('NOT_FOUND');
    }
  }

  private startAttempt(state: ActivityState): void {
    if (state.phase === 'done' || !state.owner.isOpen) return;
    state.phase = 'running';
    const info = activityInfo(state.owner, state.request, {
      attempt: state.attempt,
      scheduledAtMs: state.scheduledAtMs,
      nowMs: this.host.clock.now(),
      heartbeatDetails: state.heartbeatDetails,
    });
    const environment = new MockActivityEnvironment(info, { logger: new QuietLogger() });
    environment.on('heartbeat', (details: unknown) => {
      state.heartbeatDetails = details;
    });
    state.environment = environment;
    const { owner, request } = state;
    this.running.set(environment, owner);
    const attempt = environment
      .run(state.fn, ...fromPayloads(request.args))
      .finally(() => this.running.delete(environment))
      .then(
        (value) => this.onCompleted(state, value),
        (error: unknown) => this.onFailed(state, error),
      );
    this.host.track(
      attempt,
      `activity ${request.activityType} (id ${request.activityId}, attempt ${state.attempt}) of workflow ${owner.workflowId}`,
    );
  }

  private onCompleted(state: ActivityState, value: unknown): void {
    if (state.phase === 'done') return;
    let result: Payload;
    try {
      result = toPayload(value);
    } catch (error) {
      this.onFailed(state, error);
      return;
    }
    this.host.recordPayload(state.owner, result);
    this.finish(state, { completed: { result } });
  }

  private onFailed(state: ActivityState, error: unknown): void {
    if (state.phase === 'done') return;
    const { request } = state;
    if (state.cancelRequested && (error instanceof CancelledFailure || isAbortError(error))) {
      this.finish(state, { cancelled: { failure: activityCancelled(request) } });
      return;
    }
    const failure = activityErrorToFailure(error);
    const decision = state.cancelRequested
      ? ({ retry: false, retryState: RetryState.RETRY_STATE_CANCEL_REQUESTED } as const)
      : decideRetry(request.retryPolicy, state.attempt, failure);
    if (!decision.retry) {
      this.finish(state, { failed: { failure: activityFailed(request, failure, decision.retryState) } });
      return;
    }
    state.phase = 'backoff';
    state.attempt += 1;
    state.backoff = this.host.clock.setTimeout(() => this.startAttempt(state), decision.delayMs);
  }

  private finish(state: ActivityState, resolution: ActivityResolution): void {
    state.phase = 'done';
    state.backoff?.cancel();
    this.states.delete(key(state.owner, state.request.seq));
    this.host.resolve(state.owner, state.request, resolution);
  }
}

function key(owner: ActivityOwner, seq: number): string {
  return `${owner.runId}/${seq}`;
}
