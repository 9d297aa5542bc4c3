import { log } from '@temporalio/activity';
import { z } from 'zod';
import { ResearchApiError, type Task, type TaskAsset } from '../api';
import type { ActivityDeps } from './deps';
import { callOptions, heartbeat, lastHeartbeatDetails, throwIfCancelled } from './context';
import { callService, checkedKeyPrefix, rethrowAsFailure } from './errors';
import {
  contentTypeOf, deliverableExtension, renderReport, renderSources, safeFileName, uniqueName, withExtension,
} from './filenames';
import type { ArtifactData } from './store';
import type { ArtifactRef, StoredOutputs, StoreOutputsInput } from './types';

/** Progress recorded in heartbeats: how many planned files are stored, in plan order. */
const progressDetails = z.object({ stored: z.int().min(0) });

type FileKind = 'report' | 'sources' | 'pdf' | 'deliverable' | 'image';

interface PlannedFile {
  kind: FileKind;
  key: string;
  produce(): Promise<{ data: ArtifactData; contentType: string }>;
}

/** Statuses with which the service says a listed file cannot be had: retrying will not bring it. */
const GONE_STATUSES: ReadonlySet<number> = new Set([403, 404, 410]);

/** The activity that moves a task's report and files into the artifact store. */
export function outputActivities(deps: ActivityDeps) {
  const { api, store } = deps;

  /**
   * Stores the report, sources, PDF, deliverables and images of a task (completed, or failed/cancelled
   * with partial output) under `keyPrefix`. Heartbeats `{ stored }` after each file; a retry skips the
   * files a previous attempt stored, so nothing is downloaded twice.
   */
  async function storeResearchOutputs({ deepresearchId, keyPrefix }: StoreOutputsInput): Promise<StoredOutputs> {
    const prefix = checkedKeyPrefix(keyPrefix);
    const task = await callService(() => api.getTask(deepresearchId, callOptions()));
    const plan = planFiles(task, prefix, (url, id) => download(deepresearchId, url, id));
    const previous = progressDetails.safeParse(lastHeartbeatDetails());
    const resumeFrom = previous.success ? previous.data.stored : 0;
    const result: StoredOutputs = {
      status: task.status,
      deliverables: [],
      images: [],
      sourceCount: task.sources?.length ?? 0,
      ...(task.cost !== undefined ? { cost: task.cost } : {}),
      ...(task.error !== undefined ? { error: task.error } : {}),
      ...(task.completed_at !== undefined ? { completedAt: task.completed_at } : {}),
    };
    for (const [index, file] of plan.entries()) {
      throwIfCancelled();
      const ref = (index < resumeFrom ? await store.stat(file.key) : undefined) ?? await storeFile(file);
      if (typeof ref === 'string') (result.missing ??= []).push({ name: file.key.slice(prefix.length + 1), reason: ref });
      else record(result, file.kind, ref);
      heartbeat({ stored: index + 1 });
    }
    log.info('Research outputs stored', { deepresearchId, files: plan.length, missing: result.missing?.length ?? 0 });
    return result;
  }

  /** Stores one file; returns the reason instead when the service says the file is gone. */
  async function storeFile(file: PlannedFile): Promise<ArtifactRef | string> {
    let produced;
    try {
      produced = await file.produce();
    } catch (error) {
      if (error instanceof ResearchApiError && error.kind === 'http' && GONE_STATUSES.has(error.status ?? 0)) {
        log.warn('A listed task file could not be downloaded', { key: file.key, status: error.status });
        return error.message;
      }
      return rethrowAsFailure(error);
    }
    return store.put(file.key, produced.data, produced.contentType);
  }

  async function download(deepresearchId: string, url: string | undefined, assetId: string | undefined): Promise<TaskAsset> {
    // downloadAsset sends the API key only to the service's own origin, so a foreign URL gets no key.
    if (url) return api.downloadAsset(url, callOptions());
    if (assetId) return api.getTaskAsset(deepresearchId, assetId, {}, callOptions());
    throw new Error('a file with neither url nor id');
  }

  return { storeResearchOutputs };
}

/** The files of a task in a fixed order, so attempts agree on what "the first n" means. */
function planFiles(task: Task, prefix: string, download: (url?: string, id?: string) => Promise<TaskAsset>): PlannedFile[] {
  const plan: PlannedFile[] = [];
  const report = renderReport(task);
  if (report) {
    plan.push({ kind: 'report', key: `${prefix}/${report.fileName}`, produce: async () => ({ data: report.body, contentType: report.contentType }) });
  }
  const sources = renderSources(task);
  if (sources !== undefined) {
    plan.push({ kind: 'sources', key: `${prefix}/sources.json`, produce: async () => ({ data: sources, contentType: 'application/json' }) });
  }
  const pdfUrl = task.pdf_url;
  if (pdfUrl) plan.push({ kind: 'pdf', key: `${prefix}/report.pdf`, produce: () => fetched(`${prefix}/report.pdf`, download(pdfUrl)) });
  const deliverableNames = new Set<string>();
  (task.deliverables ?? []).forEach((deliverable, index) => {
    // A deliverable that failed to generate has no file to fetch.
    if (deliverable.status === 'failed') return;
    const base = safeFileName(deliverable.title || deliverable.id, `deliverable-${index + 1}`);
    const extension = deliverableExtension(deliverable.type);
    const key = `${prefix}/deliverables/${uniqueName(withExtension(base, extension), deliverableNames)}`;
    plan.push({ kind: 'deliverable', key, produce: () => fetched(key, download(deliverable.url, deliverable.id)) });
  });
  const imageNames = new Set<string>();
  (task.images ?? []).forEach((image, index) => {
    const url = image.image_url;
    const base = safeFileName(image.image_id || urlBaseName(url), `image-${index + 1}`);
    // Charts and screenshots are PNG images; the name only matters when the server's type is generic.
    const key = `${prefix}/images/${uniqueName(withExtension(base, '.png'), imageNames)}`;
    plan.push({ kind: 'image', key, produce: () => fetched(key, download(url)) });
  });
  return plan;
}

async function fetched(key: string, asset: Promise<TaskAsset>): Promise<{ data: Uint8Array; contentType: string }> {
  const { data, contentType } = await asset;
  // A generic type from the server says less than the file's extension.
  return { data, contentType: contentType === 'application/octet-stream' ? contentTypeOf(key) : contentType };
}

function urlBaseName(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url, 'http://relative.invalid').pathname.split('/').pop() ?? '');
  } catch {
    return undefined;
  }
}

function record(result: StoredOutputs, kind: FileKind, ref: ArtifactRef): void {
  if (kind === 'deliverable') result.deliverables.push(ref);
  else if (kind === 'image') result.images.push(ref);
  else result[kind] = ref;
}
