import { continueAsNew, proxyActivities } from '@temporalio/workflow';

/** The baseline's one activity: the same search call a pipeline item makes, nothing stored. */
export interface BareActivities {
  benchSearch(input: { query: string }): Promise<number>;
}

const { benchSearch } = proxyActivities<BareActivities>({ startToCloseTimeout: '1 minute' });

/**
 * The floor a pipeline run is measured against: the same searches in the same window, with no budget,
 * cursor, item records, outputs or progress; it continues as new every `perRun` items so its history
 * stays legal.
 */
export async function bareLoopWorkflow(input: { queries: number; window: number; perRun: number; from?: number }): Promise<number> {
  const from = input.from ?? 0;
  const to = Math.min(input.queries, from + input.perRun);
  let next = from;
  const lane = async (): Promise<void> => {
    while (next < to) {
      const index = next++;
      await benchSearch({ query: `topic number ${index + 1}` });
    }
  };
  await Promise.all(Array.from({ length: input.window }, lane));
  if (to < input.queries) await continueAsNew<typeof bareLoopWorkflow>({ ...input, from: to });
  return to;
}
