import type { TaskRecord } from '../task-record';
import type { GeneratedSource } from './sources';
import { findingsOf, summaryOf } from './findings';
import { topicOf } from './topic';

type Schema = Record<string, unknown>;
const MAX_DEPTH = 10;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Generation {
  root: Schema;
  task: TaskRecord;
  sources: readonly GeneratedSource[];
  counter: number;
}

/**
 * A JSON object matching the caller's JSON Schema output format, with values made up by type, format
 * and property name (a `summary` gets a sentence about the query, a `url` a source URL).
 */
export function structuredOutput(task: TaskRecord, schema: Schema, sources: readonly GeneratedSource[]): Record<string, unknown> {
  const root = isSchema(schema.schema) && schema.type === undefined && schema.properties === undefined ? schema.schema : schema;
  const value = generate(root, 'result', { root, task, sources, counter: 0 }, 0);
  return isSchema(value) ? value : { result: value };
}

function resolveRef(ref: string, root: Schema): Schema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const group = match ? root[match[1]!] : undefined;
  const found = match && isSchema(group) ? group[match[2]!] : undefined;
  return isSchema(found) ? found : undefined;
}

function generate(schema: Schema, name: string, state: Generation, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, state.root);
    return target ? generate(target, name, state, depth + 1) : null;
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[state.counter++ % schema.enum.length];
  const options = [schema.anyOf, schema.oneOf, schema.allOf].find(Array.isArray);
  if (options) {
    const first = options.find((option) => isSchema(option) && option.type !== 'null');
    if (isSchema(first)) return generate({ ...first, ...(schema.allOf ? mergeAll(options) : {}) }, name, state, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((entry) => entry !== 'null') ?? (isSchema(schema.properties) ? 'object' : types[0]);
  switch (type) {
    case 'object': return objectValue(schema, state, depth);
    case 'array': return arrayValue(schema, name, state, depth);
    case 'integer': return numberValue(schema, state, true);
    case 'number': return numberValue(schema, state, false);
    case 'boolean': return state.counter++ % 2 === 0;
    case 'null': return null;
    default: return stringValue(schema, name, state);
  }
}

function mergeAll(options: unknown[]): Schema {
  return Object.assign({}, ...options.filter(isSchema));
}

function objectValue(schema: Schema, state: Generation, depth: number): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : undefined;
  if (!properties || Object.keys(properties).length === 0) {
    return { summary: summaryOf(state.task, findingsOf(state.task, state.sources)) };
  }
  const value: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    value[key] = isSchema(property) ? generate(property, key, state, depth + 1) : null;
  }
  return value;
}

function arrayValue(schema: Schema, name: string, state: Generation, depth: number): unknown[] {
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const count = Math.min(max, Math.max(min, 3));
  const items = isSchema(schema.items) ? schema.items : { type: 'string' };
  return Array.from({ length: count }, () => generate(items, singular(name), state, depth + 1));
}

function numberValue(schema: Schema, state: Generation, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : Math.max(min, 100);
  const span = Math.max(0, max - min);
  const raw = min + ((state.task.seed + state.counter++ * 37) % 1000) / 1000 * span;
  return integer ? Math.min(max, Math.max(min, Math.round(raw))) : Math.round(raw * 100) / 100;
}

function stringValue(schema: Schema, name: string, state: Generation): string {
  const topic = topicOf(state.task.query);
  const index = state.counter++;
  const source = state.sources.length > 0 ? state.sources[index % state.sources.length] : undefined;
  const key = name.toLowerCase();
  let text: string;
  if (schema.format === 'date') text = source?.publication_date ?? '2025-01-15';
  else if (schema.format === 'date-time') text = `${source?.publication_date ?? '2025-01-15'}T00:00:00Z`;
  else if (schema.format === 'email') text = 'research@example.com';
  else if (schema.format === 'uri' || schema.format === 'url' || /url|link|href/.test(key)) text = source?.url ?? 'https://example.org/';
  else if (/summary|description|overview|analysis|answer|conclusion/.test(key)) text = summaryOf(state.task, findingsOf(state.task, state.sources));
  else if (/title|headline/.test(key)) text = topic.title;
  else if (/source|publisher|domain/.test(key)) text = source?.domain ?? 'example.org';
  else if (/date/.test(key)) text = source?.publication_date ?? '2025-01-15';
  else text = `${topic.keywords[index % topic.keywords.length] ?? 'topic'} ${singular(name).replace(/_/g, ' ')} ${index + 1}`;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  if (maxLength !== undefined && text.length > maxLength) text = text.slice(0, maxLength);
  return text.length < minLength ? text.padEnd(minLength, '.') : text;
}

function singular(name: string): string {
  return name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;
}

/** The report as TOON (token-oriented object notation): key lines and tabular arrays. */
export function toonReport(task: TaskRecord, sources: readonly GeneratedSource[]): string {
  const topic = topicOf(task.query);
  const findings = findingsOf(task, sources);
  const lines = [
    `title: ${toonValue(topic.title)}`,
    `mode: ${task.config.mode}`,
    `summary: ${toonValue(summaryOf(task, findings))}`,
    `findings[${findings.length}]{id,heading,text,citations}:`,
    ...findings.map((finding, index) => `  ${index + 1},${toonValue(finding.heading)},${toonValue(finding.text)},${toonValue(finding.citations.join(' '))}`),
    `sources[${sources.length}]{id,title,url,date}:`,
    ...sources.map((source, index) => `  ${index + 1},${toonValue(source.title)},${toonValue(source.url)},${source.publication_date}`),
  ];
  if (task.instructions.length > 0) {
    lines.push(`instructions[${task.instructions.length}]: ${task.instructions.map((instruction) => toonValue(instruction.text)).join(',')}`);
  }
  return `${lines.join('\n')}\n`;
}

// TOON quotes a value that holds a delimiter or colon, has outer spaces, or would read as a number or literal.
function toonValue(text: string): string {
  const plain = /^[\w .()%&/-]+$/.test(text) && text.trim() === text && !/^(-?\d+(\.\d+)?|true|false|null)$/.test(text);
  return plain ? text : JSON.stringify(text);
}
