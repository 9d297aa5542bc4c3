import type { TaskRecord } from '../task-record';
import type { GeneratedSource } from './sources';
import { findingsOf, summaryOf } from './findings';
import { topicOf } from './topic';
import { isSchema, walkSchema, type Schema } from '../../schema-walk';

const MAX_DEPTH = 10;

/**
 * A JSON object matching the caller's JSON Schema output format, with values made up by type, format
 * and property name (a `summary` gets a sentence about the query, a `url` a source URL).
 */
export function structuredOutput(task: TaskRecord, schema: Schema, sources: readonly GeneratedSource[]): Record<string, unknown> {
  const root = isSchema(schema.schema) && schema.type === undefined && schema.properties === undefined ? schema.schema : schema;
  const state: Generation = { task, sources, counter: 0 };
  const value = walkSchema(
    root,
    {
      string: (node, name) => stringValue(node, name, state),
      number: (node, integer) => numberValue(node, state, integer),
      boolean: () => state.counter++ % 2 === 0,
      choose: (options) => options[state.counter++ % options.length],
      arrayLength: (min = 0, max = Number.POSITIVE_INFINITY) => Math.min(max, Math.max(min, 3)),
      itemName: (name) => singular(name),
      emptyObject: () => ({ summary: summaryOf(task, findingsOf(task, sources)) }),
    },
    MAX_DEPTH,
  );
  return isSchema(value) ? value : { result: value };
}

interface Generation {
  task: TaskRecord;
  sources: readonly GeneratedSource[];
  counter: number;
}

function numberValue(schema: Schema, state: Generation, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
  const max =
    typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : Math.max(min, 100);
  const span = Math.max(0, max - min);
  const raw = min + (((state.task.seed + state.counter++ * 37) % 1000) / 1000) * span;
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
