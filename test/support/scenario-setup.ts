import type { SearchAttributeType } from '@temporalio/common';
import type { Clock } from '../../src/emulator/clock';

/** What a scenario block needs: the workflows, the activities, and declared search attributes. */
export interface ScenarioSetup {
  /** The workflows module, as for a Worker's `workflowsPath`. */
  readonly workflowsPath: string;
  /** Activities by name, or a factory given the environment's clock (to share it with an emulator). */
  readonly activities?: object | ((clock: Clock) => object);
  /** Custom search attributes (name -> type) to register on the server and allow on the harness. */
  readonly searchAttributes?: Readonly<Record<string, SearchAttributeType>>;
}

/** The default `waitUntil` timeout, in environment time. */
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;

/** Resolves a setup's activities for an environment's clock. */
export function resolveActivities(setup: ScenarioSetup, clock: Clock): object {
  const { activities } = setup;
  return typeof activities === 'function' ? activities(clock) : (activities ?? {});
}
