import { createRandom, hashString } from './random';
import { isSchema, walkSchema, type Schema } from './schema-walk';

const MAX_DEPTH = 12;

/** Words of the prompt, to make generated strings read as if about it. */
function subjectOf(prompt: string): string {
  const words = prompt
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .split(/\s+/)
    .filter((word) => word.length > 2)
    .slice(0, 6);
  return words.length > 0 ? words.join(' ') : 'the topic';
}

/**
 * Generates a JSON value matching a JSON Schema, deterministically from the prompt, so a client can
 * parse what Answer or Contents returns for `structured_output` / a summary schema.
 */
export function generateFromSchema(schema: unknown, prompt: string): unknown {
  if (!isSchema(schema)) return null;
  const random = createRandom(hashString(`${prompt}\u0000${JSON.stringify(schema)}`));
  const subject = subjectOf(prompt);
  return walkSchema(
    schema,
    {
      string: (node, name) => stringFor(node, name, subject),
      number: (node, integer) => {
        const minimum = typeof node.minimum === 'number' ? node.minimum : 0;
        const maximum = typeof node.maximum === 'number' ? node.maximum : minimum + 100;
        const value = minimum + random.next() * (maximum - minimum);
        return integer ? Math.round(value) : Math.round(value * 100) / 100;
      },
      boolean: () => random.chance(0.5),
      choose: (options) => options[0],
      arrayLength: (min = 2, max = Math.max(min, 2)) => Math.min(Math.max(min, Math.min(2, max)), 10),
      itemName: (name, index) => `${name} ${index + 1}`,
      emptyObject: () => ({}),
    },
    MAX_DEPTH,
  );
}

function stringFor(node: Schema, name: string, subject: string): string {
  if (node.format === 'date') return '2025-01-15';
  if (node.format === 'date-time') return '2025-01-15T12:00:00.000Z';
  if (node.format === 'uri' || node.format === 'url') return `https://example.com/${encodeURIComponent(name.replace(/\s+/g, '-'))}`;
  if (node.format === 'email') return 'research@example.com';
  const text = `${name.replace(/[_-]+/g, ' ')} for ${subject}`;
  return typeof node.maxLength === 'number' ? text.slice(0, node.maxLength) : text;
}
