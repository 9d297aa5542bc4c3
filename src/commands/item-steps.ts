import type { ItemStepView } from '../runs/item-steps';
import type { ResearchTaskState } from '../workflows/types';
import { checkpointQuestions } from '../workflows/task-state';

/** A checkpoint as `rp status --item` shows it: its type and id, its questions, and the `respond` line that answers it (`respond`: the command so far). */
export function checkpointLines(respond: string, interaction: NonNullable<ResearchTaskState['interaction']>, indent: string): string[] {
  const lines = [`${indent}checkpoint ${interaction.type}, interaction ${interaction.interaction_id}`];
  const questions = checkpointQuestions(interaction);
  for (const [index, question] of questions.entries()) lines.push(`${indent}  ${index + 1}. ${question}`);
  const example =
    interaction.type === 'planning_questions'
      ? JSON.stringify({ answers: (questions.length > 0 ? questions : ['…']).map((question) => ({ question, answer: '…' })) })
      : interaction.type === 'source_review'
        ? '{"included_domains": [], "excluded_domains": []}'
        : '{"approved": true}';
  lines.push(`${indent}answer: ${respond} --interaction ${interaction.interaction_id} --response '${example}'`);
  return lines;
}

/**
 * `rp status <run> --item key` for a `steps:` item: each step, and the research task each DeepResearch or
 * service-workflow step runs in; a step task at a checkpoint shows it with the `rp respond` line that answers it.
 */
export function itemStepsText(ref: string, item: string, steps: readonly ItemStepView[]): string {
  const lines = [`${item}: ${steps.length} steps`];
  for (const step of steps) {
    const name = `  ${step.id} · ${step.kind}`;
    if (step.kind !== 'deepresearch' && step.kind !== 'workflow') lines.push(`${name}: a call, recorded with the item (no workflow of its own)`);
    else if (step.workflowId === undefined) lines.push(`${name}: no research task (not reached, or skipped by its when:)`);
    else {
      lines.push(
        `${name}: ${step.status ?? 'unknown'} · workflow ${step.workflowId}${step.costUsd !== undefined ? ` · cost ${step.costUsd.toFixed(2)} USD` : ''}`,
      );
      if (step.interaction) lines.push(...checkpointLines(`rp respond ${ref} --item ${item}`, step.interaction, '    '));
    }
  }
  return `${lines.join('\n')}\n`;
}
