import type { ArtifactRef, StoredOutputs } from './artifacts';
import type { ItemStatus, PipelineItemRecord, PipelineStepRecord } from './pipeline-types';

/** How an item ended, as far as its record tells. */
export interface EndedItem {
  status: ItemStatus;
  costUsd: number;
  workflowId?: string;
  outputs?: StoredOutputs;
  result?: ArtifactRef;
  error?: string;
  possiblyChargedUsd?: number;
  openAtService?: PipelineItemRecord['openAtService'];
  steps?: PipelineStepRecord[];
}

const roundUsd = (usd: number): number => Math.round(usd * 1_000_000) / 1_000_000;

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
