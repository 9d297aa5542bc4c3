import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { formatIssuePath } from '../api/errors';
import { pipelineDefinition, type PipelineDefinition } from './definition-schema';
import { definitionErrorMap, unknownKeysMessage } from './issue-messages';
import { knownKeysAt, likelyKey } from './known-keys';
import { outputColumnProblems } from './output-columns';
import { yamlProblem } from './yaml-hints';
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
    ...document.errors.map((error) => ({ offset: error.pos[0], message: yamlProblem(error.code, error.message.split('\n')[0] ?? error.code) })),
    ...duplicateKeys(document).map(({ offset, key, first }) => ({
      offset,
      message: `YAML: key "${key}" is given twice in one block (first at line ${lineCounter.linePos(first).line}); keep one`,
    })),
  ];
  if (errors.length > 0) {
    // One problem a line: the parser often reports a single mistake at several columns of it.
    const lines = new Set<number>();
    const issues: DefinitionIssue[] = [];
    for (const error of errors.sort((a, b) => a.offset - b.offset)) {
      const { line, col } = lineCounter.linePos(error.offset);
      if (lines.has(line)) continue;
      lines.add(line);
      issues.push({ file, line, column: col, path: '', message: error.message });
    }
    throw new PipelineDefinitionError(issues);
  }
  const data: unknown = document.toJS({ maxAliasCount: 100 });
  const result = pipelineDefinition.safeParse(data ?? {}, { error: definitionErrorMap });
  if (!result.success) {
    throw new PipelineDefinitionError(
      result.error.issues.map((issue) => {
        const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
        const { line, column } = positionOf(document, lineCounter, issue.path, key);
        const message =
          issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, issue.path, (name) => likelyKey(name, knownKeysAt(issue.path))) : issue.message;
        return { file, line, column, path: formatIssuePath(issue.path), message };
      }),
    );
  }
  // Output columns over results are checked against what the step returns (its output schema, if any).
  const columnProblems = outputColumnProblems(result.data);
  if (columnProblems.length > 0) {
    throw new PipelineDefinitionError(
      columnProblems.map((problem) => {
        const { line, column } = positionOf(document, lineCounter, problem.path);
        return { file, line, column, path: formatIssuePath(problem.path), message: problem.message };
      }),
    );
  }
  return { file, definition: result.data };
}

/** Where each repeated key of a map is written, and where it was first (scalar keys by value; other keys are rare and left to the schema). */
function duplicateKeys(document: Document): Array<{ offset: number; key: string; first: number }> {
  const found: Array<{ offset: number; key: string; first: number }> = [];
  visit(document, {
    Map(_, map) {
      const seen = new Map<unknown, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const offset = pair.key.range?.[0] ?? 0;
        const first = seen.get(pair.key.value);
        if (first !== undefined) found.push({ offset, key: String(pair.key.value), first });
        else seen.set(pair.key.value, offset);
      }
    },
  });
  return found;
}

/** Reads and validates a definition file; errors name it relative to the working directory. */
export async function loadPipelineDefinition(file: string): Promise<LoadedPipeline> {
  const absolute = path.resolve(file);
  const shown = path.relative(process.cwd(), absolute) || absolute;
  const loaded = parsePipelineDefinition(await readFile(absolute, 'utf8'), shown.startsWith('..') ? absolute : shown);
  return { ...loaded, file: absolute };
}
