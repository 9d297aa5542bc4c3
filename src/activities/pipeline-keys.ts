import { DuplicateKeyFinder, duplicateKeysMessage, type DuplicateKey } from '../pipelines/item-keys';
import { keptByWhere } from '../pipelines/step-plan';
import { heartbeat } from './context';
import { keyOf, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';

/** Items read per page while checking keys. */
const PAGE = 1_000;

/** What `checkPipelineKeys` found: how many items, and the keys met twice or more. */
export interface PipelineKeyCheck {
  items: number;
  duplicates: DuplicateKey[];
  repeats: number;
  /** Why the run must not start (duplicate keys, named with their places); undefined when the keys are unique. */
  problem?: string;
}

/** The activity that checks a run's item keys before anything is spent. */
export function pipelineKeyActivities() {
  /**
   * Reads the whole input once (streamed, page by page, heartbeating) and reports every key met more than
   * once, with where: two items with one key would share a workflow id and a record, so one outcome would
   * be lost and both paid. Items whose key cannot be rendered are left to fail alone later. An input with
   * no items is a problem too, unless `input.allow_empty`.
   */
  async function checkPipelineKeys(run: Omit<PipelineRunRef, 'prefix'>): Promise<PipelineKeyCheck> {
    const context = runContext(run);
    const finder = new DuplicateKeyFinder();
    let items = 0;
    let cursor;
    for (;;) {
      const page = await readSourcePage(run.source, cursor, PAGE);
      for (const item of page.items) {
        if (!keptByWhere(run.definition, item.value, context.params)) continue;
        const { key, problem } = keyOf(run.definition, run.source, item, context);
        if (!problem) finder.add(key, item.where);
      }
      items += page.items.length;
      heartbeat({ items });
      if (page.done) break;
      cursor = page.cursor;
    }
    const duplicates = finder.duplicates();
    // An empty input would run and "complete" having done nothing: refused unless the definition expects it.
    const problem =
      duplicates.length > 0
        ? duplicateKeysMessage(duplicates, finder.repeats)
        : items === 0 && !run.definition.input?.allow_empty
          ? 'the input has no items, so nothing was started; add items, or set input.allow_empty: true if an empty input is expected'
          : undefined;
    return { items, duplicates, repeats: finder.repeats, ...(problem ? { problem } : {}) };
  }

  return { checkPipelineKeys };
}
