import type { SearchAttributeType } from '@temporalio/common';

/** What a scenario block needs: the workflows, the activities, and declared search attributes. */
export interface ScenarioSetup {
  /** The workflows module, as for a Worker's `workflowsPath`. */
  readonly workflowsPath: string;
  /** Activities by name, or a factory called once per test's worker. */
  readonly activities?: object | (() => object);
  /** Custom search attributes (name -> type) to register on the server. */
  readonly searchAttributes?: Readonly<Record<string, SearchAttributeType>>;
}

/** The default `waitUntil` timeout, in scenario time. */
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;

/** Resolves a setup's activities. */
export function resolveActivities(setup: ScenarioSetup): object {
  const { activities } = setup;
  return typeof activities === 'function' ? activities() : (activities ?? {});
}
