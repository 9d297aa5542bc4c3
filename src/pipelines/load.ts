import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { formatIssuePath } from '../api/errors';
import { pipelineDefinition, type PipelineDefinition } from './definition-schema';
import { definitionErrorMap } from './issue-messages';
import { positionOf } from './yaml-positions';

/** One problem of a definition file: where it is and which rule it breaks. */
export interface DefinitionIssue {
  file: string;
  line: number;
  column: number;
  /** Dotted path in the document (`step.deepresearch.mode`); empty for the whole document or a syntax error. */
  path: string;
  message: string;
}

/** `file:line:column path: rule`, the form editors and terminals turn into links. */
export function formatDefinitionIssue(issue: DefinitionIssue): string {
  return `${issue.file}:${issue.line}:${issue.column} ${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
}

/** A definition file that does not parse or validate; the message lists every issue, one a line. */
export class PipelineDefinitionError extends Error {
  constructor(readonly issues: readonly DefinitionIssue[]) {
    super(issues.map(formatDefinitionIssue).join('\n'));
    this.name = 'PipelineDefinitionError';
  }
}

/** A validated definition and the file it came from (inputs are read relative to it). */
export interface LoadedPipeline {
  file: string;
  definition: PipelineDefinition;
}

/**
 * Parses and validates definition text. `file` names it in errors and anchors relative input paths.
 * Throws `PipelineDefinitionError` listing YAML syntax errors, or every schema issue with its position.
 */
export function parsePipelineDefinition(text: string, file: string): LoadedPipeline {
  const lineCounter = new LineCounter();
  // The library's uniqueKeys check compares each key with every earlier one (40,000 keys: seconds); ours is one Set per map.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const errors = [
    ...document.errors.map((error) => ({ offset: error.pos[0], message: error.message.split('\n')[0] ?? error.code })),
    ...duplicateKeyOffsets(document).map((offset) => ({ offset, message: 'Map keys must be unique' })),
  ];
  if (errors.length > 0) {
    throw new PipelineDefinitionError(
      errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.offset);
        return { file, line, column: col, path: '', message: `YAML: ${error.message}` };
      }),
    );
  }
  const data: unknown = document.toJS({ maxAliasCount: 100 });
  const result = pipelineDefinition.safeParse(data ?? {}, { error: definitionErrorMap });
  if (!result.success) {
    throw new PipelineDefinitionError(
      result.error.issues.map((issue) => {
        const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
        const { line, column } = positionOf(document, lineCounter, issue.path, key);
        return { file, line, column, path: formatIssuePath(issue.path), message: issue.message };
      }),
    );
  }
  return { file, definition: result.data };
}

/** Where each repeated key of a map is written (scalar keys by value; other keys are rare and left to the schema). */
function duplicateKeyOffsets(document: Document): number[] {
  const offsets: number[] = [];
  visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) offsets.push(pair.key.range?.[0] ?? 0);
        seen.add(pair.key.value);
      }
    },
  });
  return offsets;
}

/** Reads and validates a definition file; errors name it relative to the working directory. */
export async function loadPipelineDefinition(file: string): Promise<LoadedPipeline> {
  const absolute = path.resolve(file);
  const shown = path.relative(process.cwd(), absolute) || absolute;
  const loaded = parsePipelineDefinition(await readFile(absolute, 'utf8'), shown.startsWith('..') ? absolute : shown);
  return { ...loaded, file: absolute };
}
