import { roundUsd } from './budget';
import type { PipelineItemRecord } from './pipeline-types';

/** How an item ended, as far as its record tells: the record's own fields of an ended item. */
export type EndedItem = Pick<
  PipelineItemRecord,
  'status' | 'costUsd' | 'workflowId' | 'outputs' | 'result' | 'error' | 'possiblyChargedUsd' | 'openAtService' | 'steps'
>;

/**
 * An ended item's record, as the run writes it, or the batch activity that ran the item: what earlier
 * attempts may have been charged (`item.possiblyChargedUsd`) is part of its cost, and said.
 */
export function itemRecordOf(
  item: { key: string; index: number; generation?: number; possiblyChargedUsd?: number },
  attempts: number,
  outcome: EndedItem,
  finishedAt: number,
): PipelineItemRecord {
  const earlierUsd = item.possiblyChargedUsd ?? 0;
  const possiblyChargedUsd = roundUsd(earlierUsd + (outcome.possiblyChargedUsd ?? 0));
  return {
    key: item.key,
    index: item.index,
    status: outcome.status,
    attempts,
    costUsd: roundUsd(outcome.costUsd + earlierUsd),
    finishedAt,
    ...(outcome.workflowId ? { workflowId: outcome.workflowId } : {}),
    ...(outcome.outputs ? { outputs: outcome.outputs } : {}),
    ...(outcome.result ? { result: outcome.result } : {}),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd } : {}),
    ...(item.generation ? { generation: item.generation } : {}),
    ...(outcome.openAtService ? { openAtService: outcome.openAtService } : {}),
    ...(outcome.steps ? { steps: outcome.steps } : {}),
  };
}
