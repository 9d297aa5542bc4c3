import { LRUCache } from 'lru-cache';
import type { TaskRecord } from './task-record';
import { currentStep, totalSteps } from './timing';
import { taskSources, type GeneratedSource } from './content/sources';
import { markdownReport, partialMarkdown } from './content/report';
import { structuredOutput, toonReport } from './content/structured';
import { generateFiles, type TaskFile } from './task-files';

/** What a finished task shows: its output, sources and, when completed, its files. */
export interface TaskOutputs {
  outputType: 'markdown' | 'json' | 'toon';
  output?: string | Record<string, unknown>;
  sources: GeneratedSource[];
  /** Images, deliverables and the PDF report by asset id (completed tasks only). */
  files: Map<string, TaskFile>;
}

/** The output type a task's formats ask for: JSON for a schema, TOON when asked without Markdown. */
export function outputTypeOf(task: TaskRecord): TaskOutputs['outputType'] {
  const formats = task.config.outputFormats;
  if (formats.some((format) => typeof format === 'object')) return 'json';
  if (formats.includes('toon') && !formats.includes('markdown')) return 'toon';
  return 'markdown';
}

/** Generates the outputs of a task that has stopped; partial ones reflect the share of work done. */
export function buildOutputs(task: TaskRecord): TaskOutputs {
  const outputType = outputTypeOf(task);
  const complete = task.status === 'completed';
  const fraction = complete ? 1 : task.workMs / task.durationMs;
  const sources = taskSources(task, fraction);
  if (!complete && task.workMs <= 0) return { outputType, sources, files: new Map() };
  const full = fullOutput(task, outputType, sources);
  const output = complete ? full : partialOutput(full, fraction, task);
  // Files always carry the readable report, whatever the main output's format.
  const report = !complete ? undefined : outputType === 'markdown' && typeof full === 'string' ? full : markdownReport(task, sources);
  const files = report === undefined ? new Map<string, TaskFile>() : generateFiles(task, report, sources);
  return { outputType, output, sources, files };
}

function fullOutput(task: TaskRecord, outputType: TaskOutputs['outputType'], sources: GeneratedSource[]): string | Record<string, unknown> {
  if (outputType === 'json') {
    const schema = task.config.outputFormats.find((format) => typeof format === 'object');
    return structuredOutput(task, typeof schema === 'object' ? schema : {}, sources);
  }
  return outputType === 'toon' ? toonReport(task, sources) : markdownReport(task, sources);
}

function partialOutput(full: string | Record<string, unknown>, fraction: number, task: TaskRecord): string | Record<string, unknown> {
  const note = `the task stopped at step ${currentStep(task.config.mode, task.workMs, task.durationMs)} of ${totalSteps(task.config.mode)}`;
  if (typeof full === 'object') {
    const entries = Object.entries(full);
    return Object.fromEntries(entries.slice(0, Math.max(1, Math.ceil(entries.length * fraction))));
  }
  if (full.startsWith('#')) return partialMarkdown(full, fraction, note);
  const lines = full.split('\n');
  return `${lines.slice(0, Math.max(1, Math.ceil(lines.length * fraction))).join('\n')}\n# partial: ${note}\n`;
}

/** A small least-recently-used cache of generated outputs, so big outputs are not kept for every task. */
export class OutputCache {
  readonly #entries: LRUCache<string, TaskOutputs>;

  constructor(capacity: number) {
    this.#entries = new LRUCache({ max: capacity });
  }

  /** The cached outputs of a stopped task, generating them on a miss. */
  get(task: TaskRecord): TaskOutputs {
    const key = `${task.id}:${task.status}:${task.generation}`;
    const hit = this.#entries.get(key);
    if (hit) return hit;
    const built = buildOutputs(task);
    this.#entries.set(key, built);
    return built;
  }
}
