import { renderTemplate, TemplateError } from '../shared/template';
import type { KeyedItem, RunContext, SourceItem } from './types';

/** What an item key may be: it is part of workflow ids and artifact paths, so no spaces or slashes. */
export const ITEM_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@+~-]{0,127}$/;
export const ITEM_KEY_RULE = '1 to 128 letters, digits and . _ : @ + ~ -, starting with a letter or digit';

/** Key of the one item of a definition without `input`. */
export const SINGLE_ITEM_KEY = 'single';

/** An item that cannot run: the message names the item (key when known, else where it was read) and the problem. */
export class ItemError extends Error {
  constructor(
    readonly where: string,
    readonly problem: string,
    readonly key?: string,
    readonly variable?: string,
  ) {
    super(`${key === undefined ? where : `item "${key}" (${where})`}: ${problem}`);
    this.name = 'ItemError';
  }
}

/** Renders and checks one item's key from the `input.key` template. */
export function itemKey(template: string, item: SourceItem, context: Pick<RunContext, 'params'>): string {
  let key: string;
  try {
    key = renderTemplate(template, { item: item.value, params: context.params });
  } catch (error) {
    if (error instanceof TemplateError) throw new ItemError(item.where, `input.key ${error.message}`, undefined, error.variable);
    throw error;
  }
  if (!ITEM_KEY_PATTERN.test(key)) {
    throw new ItemError(item.where, `item key "${key}" must be ${ITEM_KEY_RULE} (it names workflow ids; the slug filter makes one: {{ item.name | slug }})`);
  }
  return key;
}

/**
 * Keys a page of items. `seen` carries the keys of earlier pages (a run may keep one set for a whole
 * dry run, or only a page's worth); a repeated key is an error naming both places.
 */
export function keyItems(
  items: readonly SourceItem[],
  template: string | undefined,
  context: Pick<RunContext, 'params'>,
  seen: Map<string, string> = new Map(),
): KeyedItem[] {
  return items.map((item) => {
    const key = template === undefined ? SINGLE_ITEM_KEY : itemKey(template, item, context);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new ItemError(item.where, `duplicate item key "${key}" (also ${earlier}); keys must be unique in a run`, key);
    seen.set(key, item.where);
    return { ...item, key };
  });
}

/** A key met more than once in a run's input, with every place it was read (the first few). */
export interface DuplicateKey {
  key: string;
  where: string[];
}

/** Most places listed per duplicate key, and most duplicate keys reported: a message, not a dump. */
const MAX_PLACES = 5;
const MAX_REPORTED = 20;

/**
 * Collects the keys of a whole input, in any number of pages, and reports every key met twice or more
 * with the places it was read. One entry a key is kept (its first place), not the items.
 */
export class DuplicateKeyFinder {
  readonly #first = new Map<string, string>();
  readonly #repeated = new Map<string, string[]>();
  #count = 0;

  /** Notes one item's key and where it was read. */
  add(key: string, where: string): void {
    const first = this.#first.get(key);
    if (first === undefined) {
      this.#first.set(key, where);
      return;
    }
    this.#count++;
    const places = this.#repeated.get(key);
    if (!places) this.#repeated.set(key, [first, where]);
    else if (places.length < MAX_PLACES) places.push(where);
  }

  /** The repeated keys (at most 20), in the order they were first repeated. */
  duplicates(): DuplicateKey[] {
    return [...this.#repeated].slice(0, MAX_REPORTED).map(([key, where]) => ({ key, where }));
  }

  /** How many items repeat an earlier item's key. */
  get repeats(): number {
    return this.#count;
  }
}

/** One line naming each duplicate key and where it was read, for a refusal. */
export function duplicateKeysMessage(duplicates: readonly DuplicateKey[], repeats: number): string {
  const listed = duplicates.map(({ key, where }) => `"${key}" (${where.join(', ')})`).join('; ');
  const more = repeats > duplicates.reduce((sum, { where }) => sum + where.length - 1, 0) ? '; and more' : '';
  return `duplicate item keys: ${listed}${more}. Keys must be unique in a run (they name each item's workflow and record): make input.key tell the rows apart, e.g. add a column`;
}
