import type { PipelineDefinition } from './definition-schema';

type Steps = NonNullable<PipelineDefinition['step']>;
type SequenceStep = NonNullable<PipelineDefinition['steps']>[number];
type Syntheses = NonNullable<PipelineDefinition['synthesis']>;

/** The item step as a tagged union: what a run switches on. */
export type StepSpec = { [K in keyof Steps]-?: { kind: K; config: NonNullable<Steps[K]> } }[keyof Steps];
/** The synthesis step as a tagged union. */
export type SynthesisSpec = { [K in keyof Syntheses]-?: { kind: K; config: NonNullable<Syntheses[K]> } }[keyof Syntheses];

/** The one kind a validated step names, with its configuration (pure: workflow code may call it). */
export function stepSpec(step: Steps): StepSpec {
  for (const [kind, config] of Object.entries(step)) {
    if (config !== undefined) return { kind, config } as StepSpec;
  }
  throw new Error('a validated step names exactly one kind');
}

/** The one kind a validated synthesis names, with its configuration. */
export function synthesisSpec(synthesis: Syntheses): SynthesisSpec {
  for (const [kind, config] of Object.entries(synthesis)) {
    if (config !== undefined) return { kind, config } as SynthesisSpec;
  }
  throw new Error('a validated synthesis names exactly one kind');
}

/** A step of `steps:` as the run sees it: its id, its condition, and its kind with configuration. */
export type SequenceStepSpec = { id: string; when?: SequenceStep['when'] } & StepSpec;

/** The kind a validated step of `steps:` names, with its id and condition (pure: workflow code may call it). */
export function sequenceStepSpec(step: SequenceStep): SequenceStepSpec {
  const { id, when, batch: _batch, ...kinds } = step;
  return { id, ...(when ? { when } : {}), ...stepSpec(kinds) };
}

/** The steps of a definition written with `steps:`, in order; empty for the one-step form (`step:`). */
export function sequenceSteps(definition: Pick<PipelineDefinition, 'steps'>): SequenceStepSpec[] {
  return (definition.steps ?? []).map(sequenceStepSpec);
}

/** Every kind a definition's items run, in step order (one for the `step:` form). */
export function definitionKinds(definition: Pick<PipelineDefinition, 'step' | 'steps'>): Array<StepSpec['kind']> {
  return definition.step ? [stepSpec(definition.step).kind] : sequenceSteps(definition).map((step) => step.kind);
}

/** The step id a one-step definition's items carry in SQL rows (its step kind); `main` when it has `steps:` (each step has its id). */
export function rowStepId(definition: Pick<PipelineDefinition, 'step'>): string {
  return definition.step ? stepSpec(definition.step).kind : 'main';
}
