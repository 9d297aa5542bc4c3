import { setFlagsFromString } from 'node:v8';
import type { WorkerHeapMode } from './config';

// A worker's memory is mostly garbage V8 has not collected yet: with Node's defaults its young
// generation grows to 32 MB per isolate (the main thread and each workflow thread) and its old
// generation to several times what is live before a full collection. These two V8 settings keep it
// close to what is live; neither caps the heap, so no workload runs out of memory because of them.

/** Semi-space size (MB) of the compact heap: a young generation of 8 MB instead of 32. */
export const COMPACT_SEMI_SPACE_MB = 4;
/** How far the old generation may grow past what the last full collection kept (20 %, instead of V8's 1.1 to 4 times). */
export const COMPACT_HEAP_GROWING_PERCENT = 20;

/** What `compactWorkerHeap` set, and what it left to flags the process was given. */
export interface HeapSettings {
  /** The V8 flags set, in order. */
  applied: string[];
  /** The settings left as the process's own flags give them. */
  kept: string[];
}

/**
 * Applies the compact heap settings to this process, for what runs from now on: the old generation's
 * growth at once (every isolate), the young generation's size in isolates created later (the workflow
 * threads `Worker.create` starts). The main thread's young generation is sized when the process starts,
 * so the image also starts Node with `--max-semi-space-size` (see the Dockerfile). A setting the process
 * was started with (`node --…` or NODE_OPTIONS) is kept. Call it before `Worker.create`.
 */
export function compactWorkerHeap(
  mode: WorkerHeapMode,
  processFlags: string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
): HeapSettings {
  const settings: HeapSettings = { applied: [], kept: [] };
  if (mode !== 'compact') return settings;
  for (const [name, value] of [
    ['--max-semi-space-size', COMPACT_SEMI_SPACE_MB],
    ['--heap-growing-percent', COMPACT_HEAP_GROWING_PERCENT],
  ] as const) {
    // V8 takes `--max_semi_space_size` as well as `--max-semi-space-size`, with `=value` or the value next.
    const given = processFlags.map((flag) => flag.replaceAll('_', '-'));
    if (given.some((flag) => flag === name || flag.startsWith(`${name}=`))) {
      settings.kept.push(name);
      continue;
    }
    const flag = `${name}=${value}`;
    setFlagsFromString(flag);
    settings.applied.push(flag);
  }
  return settings;
}
