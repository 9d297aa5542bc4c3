import { MODES, type ResearchMode } from '../../api/schemas/common';
import type { CheckpointType } from '../../api/schemas/checkpoints';

/**
 * Where each checkpoint falls, as a share of a task's work time. They sit before the writing phase so
 * every answer can still shape the report: questions almost at once, the plan after planning, sources
 * after the search phase, the outline just before writing.
 */
export const CHECKPOINT_POSITIONS: Readonly<Record<CheckpointType, number>> = {
  planning_questions: 0.02,
  plan_review: 0.1,
  source_review: 0.4,
  outline_review: 0.7,
};

/** Share of work after which the task is writing its report; follow-up instructions are refused from here. */
export const WRITING_PHASE_START = 0.8;

/** The step count of a mode (spec section 8). */
export function totalSteps(mode: ResearchMode): number {
  return MODES[mode].maxSteps;
}

/** The step in progress after `workMs` of `durationMs`: 1 at the start, `total` at the end. */
export function currentStep(mode: ResearchMode, workMs: number, durationMs: number): number {
  const total = totalSteps(mode);
  const fraction = Math.min(1, Math.max(0, workMs / durationMs));
  return Math.min(total, Math.floor(fraction * total) + 1);
}

/** The first step of the writing phase (the last ~20% of steps). */
export function writingPhaseStep(mode: ResearchMode): number {
  return Math.floor(WRITING_PHASE_START * totalSteps(mode)) + 1;
}

/** True once the work done has entered the writing phase. */
export function inWritingPhase(workMs: number, durationMs: number): boolean {
  return workMs >= WRITING_PHASE_START * durationMs;
}
