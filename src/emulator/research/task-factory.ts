import { roundUsd } from '../accounts';
import { MODES } from '../../api/schemas/common';
import { CHECKPOINT_TYPES } from '../../api/schemas/checkpoints';
import { toolEnabled, type CostBreakdown, type NormalisedTaskRequest } from '../../api/schemas/tasks';
import type { ResolvedWorkflow } from '../../api/schemas/workflows';
import { EmulatorHttpError, type Random } from '../types';
import { normaliseDeliverables } from './deliverables';
import type { ResearchOptions } from './options';
import type { OutputFormat, TaskConfig, TaskRecord, ToolSet } from './task-record';

const TOOL_NAMES = ['code_execution', 'screenshots', 'browser_use', 'charts'] as const;

/** A workflow run's resolved configuration and the version it pinned. */
export interface WorkflowRun {
  id: string;
  version?: number;
  resolved: ResolvedWorkflow;
}

/**
 * The configuration a create request asks for; a workflow's resolved configuration fills in what the
 * request leaves out (explicit request fields win). Throws a 400 for an unsupported deliverable type.
 */
export function configFromRequest(request: NormalisedTaskRequest, workflow?: WorkflowRun): { query: string; config: TaskConfig } {
  const resolved = workflow?.resolved;
  const query = request.query ?? resolved?.input;
  if (!query) throw EmulatorHttpError.of(400, 'Invalid request parameters: query: is required');
  const deliverables = normaliseDeliverables(request.deliverables ?? resolved?.deliverables ?? []);
  if (!deliverables.ok) {
    throw EmulatorHttpError.of(400, `Invalid request parameters: deliverables[${deliverables.index}].type: ${deliverables.message}`);
  }
  const hitl = request.hitl;
  const config: TaskConfig = {
    mode: request.mode ?? resolved?.mode ?? 'standard',
    outputFormats: outputFormatsOf(request.output_formats ?? resolved?.output_formats),
    tools: toolSetOf({ ...resolved?.tools, ...request.tools }),
    deliverables: deliverables.value,
    checkpoints: CHECKPOINT_TYPES.filter((type) => hitl?.[type] === true),
    ...(hitl ? { hitl: Object.fromEntries(Object.entries(hitl).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean')) } : {}),
    researchStrategy: request.research_strategy ?? resolved?.research_strategy,
    reportFormat: request.report_format ?? resolved?.report_format,
    urls: request.urls ?? [],
    webhookUrl: request.webhook_url,
    ...(workflow ? { workflow: { id: workflow.id, version: workflow.version } } : {}),
  };
  return { query, config };
}

/** The formats as stored: strings kept, a JSON Schema object copied. */
export function outputFormatsOf(formats: readonly (string | Record<string, unknown>)[] | undefined): OutputFormat[] {
  const result: OutputFormat[] = [];
  for (const format of formats ?? ['markdown']) {
    if (typeof format === 'object') result.push({ ...format });
    else if (format === 'markdown' || format === 'pdf' || format === 'toon') result.push(format);
  }
  return result.length > 0 ? result : ['markdown'];
}

/** Every optional tool as an explicit boolean (they default to off; `{ enabled, max_calls }` counts as on unless it turns the tool off). */
export function toolSetOf(tools: Record<string, unknown> | undefined): ToolSet {
  return {
    code_execution: toolEnabled(tools?.code_execution),
    screenshots: toolEnabled(tools?.screenshots),
    browser_use: toolEnabled(tools?.browser_use),
    charts: toolEnabled(tools?.charts),
  };
}

/**
 * The price of a task: mode price plus a surcharge per enabled tool, itemised as the clients'
 * `cost_breakdown` (`task` is the mode price; each charged tool has its own key).
 */
export function priceOf(config: TaskConfig, options: ResearchOptions): { costUsd: number; breakdown: CostBreakdown } {
  const base = MODES[config.mode].priceUsd;
  const surcharges: Record<string, number> = {};
  for (const tool of TOOL_NAMES) if (config.tools[tool]) surcharges[tool] = options.toolSurchargesUsd[tool];
  const total = roundUsd(base + Object.values(surcharges).reduce((sum, value) => sum + value, 0));
  return { costUsd: total, breakdown: { task: base, ...surcharges } };
}

/** What a new task record needs besides its configuration. */
export interface NewTaskInput {
  id: string;
  organization: string;
  query: string;
  config: TaskConfig;
  metadata?: Record<string, unknown>;
  costUsd: number;
  costBreakdown: CostBreakdown;
  webhookSecret?: string;
  batchId?: string;
  batchTaskId?: string;
}

/** A fresh `queued` record with its seeded duration and (for the failing share) its failure point. */
export function newTaskRecord(input: NewTaskInput, random: Random, options: ResearchOptions, now: number): TaskRecord {
  const jitter = 1 + (random.next() * 2 - 1) * options.durationJitter;
  const durationMs = Math.max(1, Math.round(options.durationsMs[input.config.mode] * jitter));
  const fails = random.chance(options.failureRate);
  return {
    ...input,
    seed: random.int(1, 2 ** 31 - 1),
    createdAt: now,
    durationMs,
    ...(fails ? { failAtWorkMs: Math.round(durationMs * (0.15 + random.next() * 0.8)) } : {}),
    assetToken: random.hex(32),
    status: 'queued',
    public: false,
    workMs: 0,
    generation: 0,
    checkpointsDone: 0,
    history: [],
    instructions: [],
  };
}
