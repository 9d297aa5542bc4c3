import { createRandom, hashString } from './random';

const MAX_DEPTH = 12;

/** Words of the prompt, to make generated strings read as if about it. */
function subjectOf(prompt: string): string {
  const words = prompt.replace(/[^\p{L}\p{N}\s-]/gu, ' ').split(/\s+/).filter((word) => word.length > 2).slice(0, 6);
  return words.length > 0 ? words.join(' ') : 'the topic';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Generates a JSON value matching a JSON Schema (types, enums, const, required properties, arrays,
 * formats for dates, anyOf/oneOf by their first branch), deterministically from the prompt, so a
 * client can parse what Answer or Contents returns for `structured_output` / a summary schema.
 */
export function generateFromSchema(schema: unknown, prompt: string): unknown {
  const random = createRandom(hashString(`${prompt}\u0000${JSON.stringify(schema)}`));
  const subject = subjectOf(prompt);
  const generate = (node: unknown, name: string, depth: number): unknown => {
    if (!isRecord(node) || depth > MAX_DEPTH) return null;
    if ('const' in node) return node.const;
    if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (branches && branches.length > 0) return generate(branches[0], name, depth + 1);
    if (Array.isArray(node.allOf) && node.allOf.length > 0) return generate(node.allOf[0], name, depth + 1);
    const declared = Array.isArray(node.type) ? node.type.find((type) => type !== 'null') : node.type;
    const type = declared ?? (isRecord(node.properties) ? 'object' : node.items !== undefined ? 'array' : 'string');
    switch (type) {
      case 'object': {
        const properties = isRecord(node.properties) ? node.properties : {};
        return Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, generate(child, key, depth + 1)]));
      }
      case 'array': {
        const min = typeof node.minItems === 'number' ? node.minItems : 2;
        const max = typeof node.maxItems === 'number' ? node.maxItems : Math.max(min, 2);
        return Array.from({ length: Math.min(Math.max(min, Math.min(2, max)), 10) }, (_, index) => generate(node.items, `${name} ${index + 1}`, depth + 1));
      }
      case 'integer':
      case 'number': {
        const minimum = typeof node.minimum === 'number' ? node.minimum : 0;
        const maximum = typeof node.maximum === 'number' ? node.maximum : minimum + 100;
        const value = minimum + random.next() * (maximum - minimum);
        return type === 'integer' ? Math.round(value) : Math.round(value * 100) / 100;
      }
      case 'boolean':
        return random.chance(0.5);
      case 'null':
        return null;
      default:
        return stringFor(node, name, subject);
    }
  };
  return generate(schema, 'value', 0);
}

function stringFor(node: Record<string, unknown>, name: string, subject: string): string {
  if (node.format === 'date') return '2025-01-15';
  if (node.format === 'date-time') return '2025-01-15T12:00:00.000Z';
  if (node.format === 'uri' || node.format === 'url') return `https://example.com/${encodeURIComponent(name.replace(/\s+/g, '-'))}`;
  if (node.format === 'email') return 'research@example.com';
  const text = `${name.replace(/[_-]+/g, ' ')} for ${subject}`;
  return typeof node.maxLength === 'number' ? text.slice(0, node.maxLength) : text;
}
