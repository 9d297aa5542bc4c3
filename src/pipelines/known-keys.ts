import { closest, distance } from 'fastest-levenshtein';
import { pipelineJsonSchema } from './json-schema';

type SchemaNode = {
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  $ref?: string;
};

let definitionSchema: SchemaNode | undefined;

/** The nodes a node stands for: itself, or the branches of a union, references followed. */
function branches(node: SchemaNode, root: SchemaNode, depth = 0): SchemaNode[] {
  if (depth > 20) return [];
  if (node.$ref?.startsWith('#/')) {
    let target: unknown = root;
    for (const part of node.$ref.slice(2).split('/')) target = (target as Record<string, unknown> | undefined)?.[part];
    return target ? branches(target, root, depth + 1) : [];
  }
  const alternatives = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
  return alternatives.length > 0 ? [node, ...alternatives.flatMap((branch) => branches(branch, root, depth + 1))] : [node];
}

/**
 * The keys the definition's schema allows in the object at `path` (`['step', 'search']`), read from its
 * JSON Schema (the zod schema's own description, so the list never drifts from the rules).
 */
export function knownKeysAt(path: readonly PropertyKey[]): string[] {
  definitionSchema ??= pipelineJsonSchema() as SchemaNode;
  const root = definitionSchema;
  let nodes = branches(root, root);
  for (const segment of path) {
    nodes = nodes.flatMap((node) => {
      if (typeof segment === 'number') return node.items ? branches(node.items, root) : [];
      const named = node.properties?.[String(segment)] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
      return named ? branches(named, root) : [];
    });
  }
  return [...new Set(nodes.flatMap((node) => Object.keys(node.properties ?? {})))];
}

/** The known key an unknown one was most likely meant to be: a typo (a few letters off) or a known key cut short, or undefined. */
export function likelyKey(unknown: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const lower = unknown.toLowerCase();
  // A key cut short ("cost" for cost_usd) is a likely meaning too, when only one known key starts so.
  const longer = known.filter((key) => lower.length >= 3 && key.toLowerCase().startsWith(`${lower}_`));
  if (longer.length === 1) return longer[0];
  const best = closest(
    lower,
    known.map((key) => key.toLowerCase()),
  );
  const match = known.find((key) => key.toLowerCase() === best);
  // Up to one edit in three characters (at least two): "querry" -> "query", "budget_uds" -> "budget_usd"; not "colour" -> "mode".
  return match !== undefined && distance(lower, best) <= Math.max(2, Math.floor(unknown.length / 3)) ? match : undefined;
}
