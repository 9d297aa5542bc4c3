import type { PipelineDefinition } from './definition-schema';

type Steps = PipelineDefinition['step'];
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
