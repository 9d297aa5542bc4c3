import { continueAsNew, proxyActivities } from '@temporalio/workflow';

/** The kind of call each item makes. */
export type BenchStep = 'search' | 'answer';

/** The baseline's activities: the same call a pipeline item makes, nothing stored. */
export interface BareActivities {
  benchSearch(input: { query: string }): Promise<number>;
  benchAnswer(input: { query: string }): Promise<number>;
}

const { benchSearch, benchAnswer } = proxyActivities<BareActivities>({ startToCloseTimeout: '1 minute' });

/**
 * The floor a pipeline run is measured against: the same calls in the same window, with no budget,
 * cursor, item records, outputs or progress; it continues as new every `perRun` items so its history
 * stays legal.
 */
export async function bareLoopWorkflow(input: { queries: number; window: number; perRun: number; from?: number; step?: BenchStep }): Promise<number> {
  const from = input.from ?? 0;
  const to = Math.min(input.queries, from + input.perRun);
  const call = input.step === 'answer' ? benchAnswer : benchSearch;
  let next = from;
  const lane = async (): Promise<void> => {
    while (next < to) {
      const index = next++;
      await call({ query: `topic number ${index + 1}` });
    }
  };
  await Promise.all(Array.from({ length: input.window }, lane));
  if (to < input.queries) await continueAsNew<typeof bareLoopWorkflow>({ ...input, from: to });
  return to;
}
