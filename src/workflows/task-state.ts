import type { TaskSnapshot } from '../activities/types';
import type { StoredOutputs } from '../domain/artifacts';
import type { CheckpointType, Interaction, ResearchMode, TaskStatus } from '../api/schemas';
import { checkpointAnswerProblem } from './checkpoint-answers';
import { messageSchemas } from './message-schemas';
import { closedCheckpointRemedy } from './operator-remedy';
import type { ResearchTaskModelCarried, ResearchTaskState, WaitReason } from './types';

const TERMINAL: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];
const CHECKPOINT_ORDER: readonly CheckpointType[] = ['planning_questions', 'plan_review', 'source_review', 'outline_review'];

/**
 * The research task as the workflow knows it, kept apart from Temporal wiring so its rules are unit
 * tested: status transitions, checkpoint answers, instructions, and time spent waiting for a human.
 */
export class ResearchTaskModel {
  deepresearchId?: string;
  /** 'cancel_refused': the workflow was cancelled but the service kept the task (see the result's openAtService). */
  status: TaskStatus | 'creating' | 'cancel_refused' = 'creating';
  waitingFor: WaitReason = 'creating';
  detail?: string;
  progress?: { currentStep: number; totalSteps: number };
  interaction?: Interaction;
  cost?: number;
  error?: string;
  polls = 0;
  webhooks = 0;
  waitingForInputMs = 0;
  /** Time spent settling a create whose answer was lost. */
  reconcilingMs = 0;
  /** What was stored once the task ended. */
  outputs?: StoredOutputs;
  readonly rejectedAnswers: ResearchTaskState['rejectedAnswers'] = [];
  readonly rejectedSignals: ResearchTaskState['rejectedSignals'] = [];
  readonly instructions: ResearchTaskState['instructions'] = [];
  /** Interactions already answered, so a signal and an update cannot both answer one. */
  readonly answered = new Set<string>();
  #inputSince?: number;
  /** The interaction whose answer is being forwarded, to show it again if the service refuses. */
  #answering?: Interaction;
  #seenCheckpoints = new Set<CheckpointType>();

  constructor(
    readonly mode: ResearchMode,
    readonly enabledCheckpoints: readonly CheckpointType[],
  ) {}

  /** A model restored from what an earlier run carried across continue-as-new. */
  static restore(mode: ResearchMode, enabledCheckpoints: readonly CheckpointType[], carried: ResearchTaskModelCarried): ResearchTaskModel {
    const model = new ResearchTaskModel(mode, enabledCheckpoints);
    const { answered, inputSince, seenCheckpoints, rejectedAnswers, rejectedSignals, instructions, ...fields } = carried;
    Object.assign(model, fields);
    model.rejectedAnswers.push(...rejectedAnswers);
    model.rejectedSignals.push(...rejectedSignals);
    model.instructions.push(...instructions);
    for (const id of answered) model.answered.add(id);
    model.#inputSince = inputSince;
    model.#seenCheckpoints = new Set(seenCheckpoints);
    return model;
  }

  /** Everything the next run needs to go on exactly where this one stopped (plain JSON). */
  carry(): ResearchTaskModelCarried {
    return {
      deepresearchId: this.deepresearchId,
      status: this.status,
      waitingFor: this.waitingFor,
      detail: this.detail,
      progress: this.progress,
      interaction: this.interaction,
      cost: this.cost,
      error: this.error,
      polls: this.polls,
      webhooks: this.webhooks,
      waitingForInputMs: this.waitingForInputMs,
      rejectedAnswers: [...this.rejectedAnswers],
      rejectedSignals: [...this.rejectedSignals],
      instructions: [...this.instructions],
      answered: [...this.answered],
      inputSince: this.#inputSince,
      seenCheckpoints: [...this.#seenCheckpoints],
    };
  }

  /** Applies a status read from the service; returns true when the status changed. */
  apply(snapshot: TaskSnapshot, now: number): boolean {
    const changed = snapshot.status !== this.status;
    const waitingForHuman = snapshot.status === 'awaiting_input' || snapshot.status === 'paused';
    if (waitingForHuman && this.#inputSince === undefined) this.#inputSince = now;
    if (!waitingForHuman && this.#inputSince !== undefined) {
      this.waitingForInputMs += now - this.#inputSince;
      this.#inputSince = undefined;
    }
    this.status = snapshot.status;
    this.progress = snapshot.progress;
    this.cost = snapshot.cost ?? this.cost;
    this.error = snapshot.error;
    this.interaction = waitingForHuman && snapshot.interaction && !this.answered.has(snapshot.interaction.interaction_id) ? snapshot.interaction : undefined;
    if (this.interaction) this.#seenCheckpoints.add(this.interaction.type);
    this.waitingFor = this.interaction ? 'checkpoint' : 'research';
    this.detail = this.interaction
      ? `${snapshot.status === 'paused' ? 'paused at' : 'waiting for an answer to'} ${this.interaction.type} (interaction ${this.interaction.interaction_id})`
      : undefined;
    return changed;
  }

  /** Closes a wait for a person still open when the workflow ends, so `waitingForInputMs` counts it. */
  endWaits(now: number): void {
    if (this.#inputSince === undefined) return;
    this.waitingForInputMs += now - this.#inputSince;
    this.#inputSince = undefined;
  }

  /** True once the task can no longer change. */
  get terminal(): boolean {
    return (TERMINAL as readonly string[]).includes(this.status);
  }

  /** True while an enabled checkpoint may still come (the service sends no webhook for them). */
  get checkpointsAhead(): boolean {
    const last = [...this.#seenCheckpoints].reduce((index, type) => Math.max(index, CHECKPOINT_ORDER.indexOf(type)), -1);
    return this.enabledCheckpoints.some((type) => CHECKPOINT_ORDER.indexOf(type) > last);
  }

  /** Why a checkpoint answer is refused, or undefined when it may be forwarded. */
  answerProblem(answer: unknown): string | undefined {
    if (this.interaction === undefined && this.status !== 'awaiting_input' && this.status !== 'paused') {
      return `the task is ${this.status}; answers are taken only while a checkpoint is waiting (awaiting_input or paused)`;
    }
    return checkpointAnswerProblem(this.interaction, answer);
  }

  /** Records an answer the workflow refused, visible in the state query. */
  reject(interactionId: string, reason: string, now: number): void {
    this.rejectedAnswers.push({ interactionId, reason, at: now });
    if (this.rejectedAnswers.length > 20) this.rejectedAnswers.shift();
  }

  /** Records a signal whose payload the workflow could not use, visible in the state query. */
  rejectSignal(signal: string, reason: string, now: number): void {
    this.rejectedSignals.push({ signal, reason, at: now });
    if (this.rejectedSignals.length > 20) this.rejectedSignals.shift();
  }

  /** Marks the current interaction answered: the task goes back to the queue. */
  markAnswered(interactionId: string): void {
    this.answered.add(interactionId);
    if (this.interaction?.interaction_id === interactionId) {
      this.#answering = this.interaction;
      this.interaction = undefined;
      this.waitingFor = 'research';
      this.detail = undefined;
    }
  }

  /** Forgets an answer the service refused: the checkpoint shows again and takes another answer. */
  unmarkAnswered(interactionId: string): void {
    this.answered.delete(interactionId);
    if (this.#answering?.interaction_id === interactionId && this.interaction === undefined) {
      this.interaction = this.#answering;
      this.waitingFor = 'checkpoint';
      this.detail = `waiting for an answer to ${this.interaction.type} (interaction ${interactionId}); the last one was refused`;
    }
    this.#answering = undefined;
  }

  /** Why an instruction is refused before asking the service, or undefined. */
  instructionProblem(instruction: unknown): string | undefined {
    const { checkMessage, followUpInstruction } = messageSchemas();
    const checked = checkMessage(followUpInstruction, instruction);
    if ('problem' in checked) return checked.problem;
    if (this.deepresearchId === undefined) return 'the task has not been created yet';
    if (this.status !== 'running' && this.status !== 'queued') {
      return `the task is ${this.status}; instructions are accepted only while it is queued or running, before the writing phase`;
    }
    return undefined;
  }

  /** Markdown for the Temporal UI's current details: status, task, progress, why it waits, cost. */
  details(): string {
    const lines = [`**${this.status}**${this.deepresearchId ? ` · task \`${this.deepresearchId}\`` : ''} · ${this.mode}`];
    if (this.progress) lines.push(`step ${this.progress.currentStep} of ${this.progress.totalSteps}`);
    if (this.detail) lines.push(this.detail);
    // A workflow that ended with its task left open cannot take an answer any more: say what can.
    if (this.interaction && this.status === 'cancel_refused') lines.push(closedCheckpointRemedy(this.interaction.type, this.interaction.interaction_id));
    else if (this.interaction) {
      const questions = checkpointQuestions(this.interaction);
      if (questions.length > 0) lines.push(`the research asks:\n${questions.map((question, index) => `${index + 1}. ${question}`).join('\n')}`);
      lines.push(checkpointHowTo(this.interaction.type, this.interaction.interaction_id));
    }
    if (this.cost !== undefined) lines.push(`cost ${this.cost.toFixed(2)} USD`);
    return lines.join('\n\n');
  }

  /** Time a checkpoint has waited for a person, the wait still open at `now` included. */
  waitedForInputMs(now: number): number {
    return this.waitingForInputMs + (this.#inputSince !== undefined ? Math.max(0, now - this.#inputSince) : 0);
  }

  /** The state query's answer. */
  toState(now?: number): ResearchTaskState {
    return {
      deepresearchId: this.deepresearchId,
      status: this.status,
      mode: this.mode,
      waitingFor: this.waitingFor,
      detail: this.detail,
      progress: this.progress,
      interaction: this.interaction,
      rejectedAnswers: [...this.rejectedAnswers],
      rejectedSignals: [...this.rejectedSignals],
      instructions: [...this.instructions],
      cost: this.cost,
      polls: this.polls,
      webhooks: this.webhooks,
      error: this.error,
      reconcilingMs: this.reconcilingMs,
      waitingForInputMs: now !== undefined ? this.waitedForInputMs(now) : this.waitingForInputMs,
      ...(this.outputs ? { outputs: this.outputs } : {}),
    };
  }
}

/** Example answers by checkpoint type (the shapes the service takes). */
const EXAMPLE_RESPONSES: Record<string, string> = {
  plan_review: '{"approved": true}',
  outline_review: '{"approved": true}',
  planning_questions: '{"answers": [{"question": "…", "answer": "…"}]}',
  source_review: '{"included_domains": ["…"], "excluded_domains": []}',
};

/** How an operator unblocks a checkpoint, for the UI's current details. */
export function checkpointHowTo(type: string, interactionId: string): string {
  const response = EXAMPLE_RESPONSES[type] ?? '<the answer>';
  return `to go on, run the **respondToCheckpoint** update with \`{"interactionId": "${interactionId}", "response": ${response}}\` (or \`rp respond <run> --item <key> --interaction ${interactionId} --response '${response}'\`)`;
}

/**
 * The questions a planning checkpoint asks, as text: its `data.questions` (strings or `{question}`), else
 * the questions its `expected_response` lists; none for other checkpoints.
 */
export function checkpointQuestions(interaction: { type: string; data?: unknown; expected_response?: unknown }): string[] {
  if (interaction.type !== 'planning_questions') return [];
  const questionOf = (entry: unknown): string | undefined => {
    if (typeof entry === 'string') return entry;
    const question = (entry as { question?: unknown } | null)?.question;
    return typeof question === 'string' ? question : undefined;
  };
  const listed = (value: unknown, field: string): string[] => {
    const list = (value as Record<string, unknown> | null | undefined)?.[field];
    return Array.isArray(list) ? list.map(questionOf).filter((question): question is string => question !== undefined && question.trim() !== '') : [];
  };
  const asked = listed(interaction.data, 'questions');
  return [...new Set(asked.length > 0 ? asked : listed(interaction.expected_response, 'answers'))];
}
