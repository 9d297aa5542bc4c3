import type { ItemStepView } from '../runs/item-steps';

/** `rp status <run> --item key` for a `steps:` item: each step, and the research task each DeepResearch or service-workflow step runs in. */
export function itemStepsText(item: string, steps: readonly ItemStepView[]): string {
  const lines = [`${item}: ${steps.length} steps`];
  for (const step of steps) {
    const name = `  ${step.id} · ${step.kind}`;
    if (step.kind !== 'deepresearch' && step.kind !== 'workflow') lines.push(`${name}: a call, recorded with the item (no workflow of its own)`);
    else if (step.workflowId === undefined) lines.push(`${name}: no research task (not reached, or skipped by its when:)`);
    else
      lines.push(
        `${name}: ${step.status ?? 'unknown'} · workflow ${step.workflowId}${step.costUsd !== undefined ? ` · cost ${step.costUsd.toFixed(2)} USD` : ''}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
