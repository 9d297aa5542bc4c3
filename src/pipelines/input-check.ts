import { parseTemplate, TemplateError } from '../shared/template';
import type { PipelineDefinition } from './definition-schema';
import { InputError, shownPath } from './input-file';
import { itemSource } from './input-source';
import { DuplicateKeyFinder, duplicateKeysMessage, ItemError, itemKey } from './item-keys';
import { likelyKey } from './known-keys';
import type { LoadedPipeline } from './load';
import { readItems } from './read-items';
import type { ItemCursor, ItemSource, RunContext, SourceItem } from './types';

/** Most field names collected from JSON items (their union), a bound on memory. */
const MAX_FIELDS = 1_000;

/** Where a definition reads an item's fields: `{{ item.x }}` in the step, the key and the output columns. */
export function itemFieldReferences(definition: PipelineDefinition): Array<{ where: string; field: string; source: string }> {
  const found: Array<{ where: string; field: string; source: string }> = [];
  const visit = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      let expressions;
      try {
        expressions = parseTemplate(value);
      } catch (error) {
        if (error instanceof TemplateError) return;
        throw error;
      }
      for (const { path, source } of expressions) if (path[0] === 'item' && path[1] !== undefined) found.push({ where, field: path[1], source });
    } else if (Array.isArray(value)) value.forEach((entry, index) => visit(entry, `${where}[${index}]`));
    else if (typeof value === 'object' && value !== null) for (const [key, entry] of Object.entries(value)) visit(entry, `${where}.${key}`);
  };
  visit(definition.step, 'step');
  if (definition.input) visit(definition.input.key, 'input.key');
  definition.outputs.forEach((output, index) => visit(output.columns ?? {}, `outputs[${index}].columns`));
  return found;
}

/**
 * What a whole input holds, gathered item by item (any number of pages): how many items, the fields they
 * have (a CSV's header, or the union of JSON items' keys) and the keys met twice. It keeps one entry a key,
 * never the items.
 */
export class InputChecker {
  readonly #duplicates = new DuplicateKeyFinder();
  readonly #fields = new Set<string>();
  #plainValues = false;
  #items = 0;

  constructor(
    readonly definition: PipelineDefinition,
    readonly source: ItemSource,
  ) {}

  /** Notes one item, with its key when it has one. */
  add(item: SourceItem, key?: string): void {
    this.#items += 1;
    if (key !== undefined) this.#duplicates.add(key, item.where);
    if (this.source.kind === 'csv') return; // the header says the fields
    if (typeof item.value === 'object' && item.value !== null && !Array.isArray(item.value)) {
      for (const name of Object.keys(item.value)) if (this.#fields.size < MAX_FIELDS) this.#fields.add(name);
    } else {
      this.#plainValues = true;
    }
  }

  /** Notes a CSV's header. */
  header(columns: readonly string[] | undefined): void {
    for (const name of columns ?? []) this.#fields.add(name);
  }

  /** How many items were noted. */
  get items(): number {
    return this.#items;
  }

  /** The input's problems: empty (unless allowed), keys met twice, fields the templates read that no item has. */
  problems(): string[] {
    const problems: string[] = [];
    const input = this.definition.input;
    const named = this.source.kind === 'csv' || this.source.kind === 'jsonl' ? shownPath(this.source.path) : 'input.items';
    if (this.#items === 0 && this.source.kind !== 'single' && !input?.allow_empty)
      problems.push(`${named}: the input has no items, so a run would do nothing; add rows, or set input.allow_empty: true if an empty input is expected`);
    const duplicates = this.#duplicates.duplicates();
    if (duplicates.length > 0) problems.push(duplicateKeysMessage(duplicates, this.#duplicates.repeats));
    // Plain values ({{ item }}) have no fields; with no item there is nothing to compare with.
    if (this.#items === 0 || this.#plainValues || this.source.kind === 'single') return problems;
    const fields = [...this.#fields];
    const what = this.source.kind === 'csv' ? `the CSV header of ${named} has no column` : `no item of ${named} has a field`;
    const reported = new Set<string>();
    for (const { where, field, source } of itemFieldReferences(this.definition)) {
      if (this.#fields.has(field) || reported.has(`${where} ${field}`)) continue;
      reported.add(`${where} ${field}`);
      const meant = likelyKey(field, fields);
      problems.push(
        `${where}: {{ ${source} }}: ${what} "${field}" (${this.source.kind === 'csv' ? 'columns' : 'fields'}: ${fields.join(', ') || 'none'})${meant ? `; did you mean ${meant}?` : ''}`,
      );
    }
    return problems;
  }
}

/** What `checkInput` found: the items counted, and every problem (none when the input can run). */
export interface InputCheck {
  items: number;
  problems: string[];
}

/**
 * Reads a definition's whole input, page by page, as a run would: the file must exist and parse, have
 * items (unless `input.allow_empty`), keys that are valid and unique (rendered with `params`), and the
 * fields its templates read. Parameters without a value leave the keys unchecked, said in the problems.
 */
export async function checkInput(loaded: LoadedPipeline, context: Pick<RunContext, 'params'> | undefined, maxKeyProblems = 20): Promise<InputCheck> {
  const { definition } = loaded;
  const source = itemSource(loaded);
  const checker = new InputChecker(definition, source);
  const keyProblems: string[] = [];
  let keyErrors = 0;
  let cursor: ItemCursor | undefined;
  try {
    for (let done = false; !done;) {
      const page = await readItems(source, { cursor, limit: 1000 });
      if (cursor === undefined) checker.header(page.cursor.columns);
      for (const item of page.items) {
        let key: string | undefined;
        if (context && definition.input && source.kind !== 'single') {
          try {
            key = itemKey(definition.input.key, item, context);
          } catch (error) {
            if (!(error instanceof ItemError)) throw error;
            if (++keyErrors <= maxKeyProblems) keyProblems.push(error.message);
          }
        }
        checker.add(item, key);
      }
      ({ cursor, done } = page);
    }
  } catch (error) {
    if (error instanceof InputError) return { items: checker.items, problems: [error.message] };
    throw error;
  }
  const more = keyErrors > maxKeyProblems ? [`and ${keyErrors - maxKeyProblems} more items whose key cannot be made`] : [];
  return { items: checker.items, problems: [...keyProblems, ...more, ...checker.problems()] };
}
