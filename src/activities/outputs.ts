import { log } from '@temporalio/activity';
import { z } from 'zod';
import { ResearchApiError, type CallOptions, type Task, type TaskAssetStream } from '../api';
import type { ActivityDeps } from './deps';
import { callOptions, heartbeat, lastHeartbeatDetails, throwIfCancelled } from './context';
import { callService, checkedKeyPrefix, rethrowAsFailure } from './errors';
import { contentTypeOf, deliverableExtension, renderReport, renderSources, safeFileName, uniqueName, withExtension } from './filenames';
import type { ArtifactData } from './store';
import type { EndedTaskOutputs, StoreOutputsInput } from './types';
import { snapshotOf } from './tasks';
import type { ArtifactRef, StoredOutputs } from '../domain/artifacts';

/** Progress recorded in heartbeats: how many planned files are stored, in plan order. */
const progressDetails = z.object({ stored: z.int().min(0) });

type FileKind = 'report' | 'sources' | 'pdf' | 'deliverable' | 'image';

interface PlannedFile {
  kind: FileKind;
  key: string;
  produce(): Promise<{ data: ArtifactData; contentType: string }>;
}

/** Statuses after which a task no longer changes. */
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

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
    return await storeFrom(task, deepresearchId, prefix);
  }

  /**
   * What a webhook announcing the end needs: one status read that, when the task has ended, also stores
   * its outputs (as `storeResearchOutputs`). A task that has not ended (the announcement was wrong, or
   * early) gets nothing stored: only its status comes back, and the workflow goes on following it.
   */
  async function storeEndedResearchOutputs({ deepresearchId, keyPrefix }: StoreOutputsInput): Promise<EndedTaskOutputs> {
    const prefix = checkedKeyPrefix(keyPrefix);
    const task = await callService(() => api.getTask(deepresearchId, callOptions()));
    const snapshot = snapshotOf(task);
    if (!ENDED.has(task.status)) return { snapshot };
    return { snapshot, outputs: await storeFrom(task, deepresearchId, prefix) };
  }

  async function storeFrom(task: Task, deepresearchId: string, prefix: string): Promise<StoredOutputs> {
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
      const ref = (index < resumeFrom ? await store.stat(file.key) : undefined) ?? (await storeFile(file, index));
      if (typeof ref === 'string') (result.missing ??= []).push({ name: file.key.slice(prefix.length + 1), reason: ref });
      else record(result, file.kind, ref);
      heartbeat({ stored: index + 1 });
    }
    log.info('Research outputs stored', { deepresearchId, files: plan.length, missing: result.missing?.length ?? 0 });
    return result;
  }

  /** Stores one file; returns the reason instead when the service says the file is gone. */
  async function storeFile(file: PlannedFile, storedBefore: number): Promise<ArtifactRef | string> {
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
    try {
      // A download streams into the store; heartbeats while it flows keep a slow file from looking stuck.
      return await store.put(file.key, heartbeating(produced.data, storedBefore), produced.contentType);
    } catch (error) {
      return rethrowAsFailure(error);
    }
  }

  async function download(deepresearchId: string, url: string | undefined, assetId: string | undefined): Promise<TaskAssetStream> {
    // streamAsset sends the API key only to the service's own origin, so a foreign URL gets no key.
    if (url) return api.streamAsset(url, streamOptions());
    if (assetId) return api.streamTaskAsset(deepresearchId, assetId, streamOptions());
    throw new Error('a file with neither url nor id');
  }

  return { storeResearchOutputs, storeEndedResearchOutputs };
}

/** The files of a task in a fixed order, so attempts agree on what "the first n" means. */
function planFiles(task: Task, prefix: string, download: (url?: string, id?: string) => Promise<TaskAssetStream>): PlannedFile[] {
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

async function fetched(key: string, asset: Promise<TaskAssetStream>): Promise<{ data: AsyncIterable<Uint8Array>; contentType: string }> {
  const { body, contentType } = await asset;
  // A generic type from the server says less than the file's extension.
  return { data: body, contentType: contentType === 'application/octet-stream' ? contentTypeOf(key) : contentType };
}

/** How often a streaming download heartbeats at most. */
const HEARTBEAT_EVERY_MS = 1_000;

/** Passes a file's chunks through, heartbeating (files stored so far) while they flow. */
export function heartbeating(data: ArtifactData, storedBefore: number): ArtifactData {
  if (typeof data === 'string' || data instanceof Uint8Array) return data;
  const chunks = data;
  return (async function* flowing(): AsyncGenerator<Uint8Array> {
    let last = Date.now();
    for await (const chunk of chunks) {
      throwIfCancelled();
      if (Date.now() - last >= HEARTBEAT_EVERY_MS) {
        heartbeat({ stored: storedBefore });
        last = Date.now();
      }
      yield chunk;
    }
  })();
}

/**
 * Call options for a download: the cancellation signal only. The transport still bounds the response
 * head and each gap between chunks; the activity's heartbeat timeout bounds the rest.
 */
function streamOptions(): CallOptions {
  const { signal } = callOptions();
  return signal ? { signal } : {};
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
