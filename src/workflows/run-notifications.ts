import { patched, workflowInfo } from '@temporalio/workflow';
import { notifyTargets, runEventId, waitEvents, type RunEvent, type RunEventType, type WaitMemory } from '../domain/notifications';
import type { PipelineOutputs, PipelineRunInput } from '../domain/pipeline-types';
import { notifyCalls } from './activity-proxies';
import { failureMessage } from './failure-info';
import type { PipelineRunModel } from './pipeline-run-model';

/** Who the notifier speaks for. */
export interface NotifiedRun {
  input: PipelineRunInput;
  model: PipelineRunModel;
  runKey: string;
}

/** The origin of a receiver, for notes: a URL's path or query may carry a token. */
function originOf(url: string): string {
  return /^[a-z]+:\/\/[^/?#]+/i.exec(url)?.[0] ?? 'a receiver';
}

/**
 * Sends a pipeline run's notifications to the `notify:` URLs of its definition and its trigger: when the
 * run starts waiting for budget or for a person, and when it ends (with the change report's news, if it
 * kept one). Each delivery is its own activity, retried with backoff; a receiver that stays down is noted
 * in the run, never fails it. A run with no receivers issues no command (its history is as before).
 */
export class RunNotifier {
  readonly #run: NotifiedRun;
  readonly #urls: string[];
  #enabled: boolean | undefined;
  #sequence = 0;
  #memory: WaitMemory;
  readonly #pending = new Set<Promise<void>>();

  constructor(run: NotifiedRun) {
    this.#run = run;
    this.#urls = notifyTargets(run.input.definition.notify, run.input.notify);
    // What an earlier execution of the run told already is not told again.
    this.#memory = run.input.carried?.notified ?? { budget: false, person: [] };
  }

  /** What continue-as-new carries of the notifier: the waits it told of (nothing for a run without receivers). */
  toCarried(): { notified?: { budget: boolean; person: string[] } } {
    const { budget, person } = this.#memory;
    return this.#urls.length > 0 && (budget || person.length > 0) ? { notified: { budget, person: [...person] } } : {};
  }

  get #on(): boolean {
    this.#enabled ??= this.#urls.length > 0 && patched('run-notifications');
    return this.#enabled;
  }

  /** Looks at the run's state (call it whenever the run shows it): a new wait for budget or a person is told. */
  observe(): void {
    if (!this.#on) return;
    const { model, runKey } = this.#run;
    const now = Date.now();
    const { waiting } = model.toState(runKey, 1, now);
    const { events, memory } = waitEvents(this.#memory, { phase: model.phase, waiting });
    this.#memory = memory;
    for (const type of events) this.#send(type, undefined, waiting);
  }

  /** Tells how the run ended (and what changed, with a change report), then waits for every delivery to end. */
  async finish(outputs: PipelineOutputs): Promise<void> {
    if (!this.#on) return;
    const { phase } = this.#run.model;
    const type: RunEventType = phase === 'failed' ? 'run.failed' : phase === 'cancelled' ? 'run.cancelled' : 'run.completed';
    this.#send(type, outputs);
    if (outputs.changes && phase === 'completed') this.#send('run.changes_found', outputs);
    await this.settle();
  }

  /** Waits for the deliveries under way (before the run continues as new or returns). */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #send(type: RunEventType, outputs?: PipelineOutputs, waiting?: RunEvent['data']['waiting']): void {
    const { model, runKey } = this.#run;
    const info = workflowInfo();
    const { running, ...counts } = model.counts;
    const event: RunEvent = {
      id: runEventId({ runId: info.runId, type, sequence: this.#sequence++ }),
      type,
      timestamp: new Date(Date.now()).toISOString(),
      data: {
        pipeline: this.#run.input.definition.name,
        runKey,
        workflowId: info.workflowId,
        phase: model.phase,
        ...(model.detail ? { detail: model.detail } : {}),
        counts: { ...counts, running },
        ledger: { ...model.ledger },
        ...(waiting ? { waiting } : {}),
        ...(outputs ? { outputs } : {}),
      },
    };
    for (const url of this.#urls) {
      const delivery = notifyCalls.notifyRun({ url, event }).then(
        () => undefined,
        (error: unknown) => model.note(`notification ${type} to ${originOf(url)} failed: ${failureMessage(error)}`),
      );
      this.#pending.add(delivery);
      void delivery.finally(() => this.#pending.delete(delivery));
    }
  }
}
