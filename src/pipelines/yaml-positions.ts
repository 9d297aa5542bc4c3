import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

/** A 1-based line and column in a YAML file. */
export interface SourcePosition {
  line: number;
  column: number;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

/**
 * Where the value at `path` is written, or the deepest part of the path that exists (a missing key is
 * reported at the object that lacks it). With `key`, the position of that key inside the object at
 * `path` (where an unknown key is written).
 */
export function positionOf(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[], key?: string): SourcePosition {
  let node: Node | null | undefined = document.contents;
  let found: Node | undefined = node ?? undefined;
  for (const segment of [...path, ...(key === undefined ? [] : [key])]) {
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (!pair) break;
      const last = key !== undefined && segment === key;
      const target = last || pair.value === null ? pair.key : pair.value;
      node = target as Node;
      if (node && 'range' in node) found = node;
      if (last) break;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment] as Node | undefined;
      if (!node) break;
      found = node;
    } else {
      break;
    }
  }
  const offset = found?.range?.[0] ?? 0;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
