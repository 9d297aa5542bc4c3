import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { payloadTextsIn } from '../support/server/history';

/** One line of a run's JSONL output. */
export interface OutputLine {
  key: string;
  status: string;
  output?: unknown;
  /** The stored report (DeepResearch items). */
  report?: string;
}

/** Lines whose item completed with its result at hand: a structured or short output, or a stored report that is not empty. */
export async function linesWithResults(lines: readonly OutputLine[]): Promise<OutputLine[]> {
  const present = await Promise.all(
    lines.map(async (line) => {
      if (line.status !== 'completed') return false;
      if (line.output !== undefined && line.output !== '') return true;
      return line.report !== undefined && (await readFile(fileURLToPath(line.report), 'utf8')).trim().length > 0;
    }),
  );
  return lines.filter((_, index) => present[index]);
}

/** The lines of the run's JSONL output file. */
export async function jsonlOutput(result: PipelineRunResult): Promise<OutputLine[]> {
  const file = result.outputs.files.find((output) => output.uri.endsWith('.jsonl'));
  if (!file) throw new Error(`the run wrote no JSONL output: ${result.outputs.files.map((output) => output.uri).join(', ')}`);
  return (await readFile(fileURLToPath(file.uri), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as OutputLine);
}

/**
 * The data of every payload in the history of every workflow execution on `taskQueue` (the run, each
 * continue-as-new run, every child and every retried child), with the number of executions read.
 */
export async function payloadTextsOnQueue(client: Client, taskQueue: string): Promise<{ executions: number; texts: string[] }> {
  const texts: string[] = [];
  let executions = 0;
  for await (const execution of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    texts.push(...payloadTextsIn(history));
    executions += 1;
  }
  return { executions, texts };
}

/** The secrets (by description) found anywhere in `haystacks`. */
export function leakedSecrets(haystacks: readonly string[], secrets: ReadonlyMap<string, string>): string[] {
  return [...secrets].filter(([, secret]) => haystacks.some((text) => text.includes(secret))).map(([name]) => name);
}
