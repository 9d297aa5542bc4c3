import type { ErrorCode } from 'yaml';

// The YAML library's messages name grammar productions ("compact mappings", "implicit keys"); people who
// write definitions think in lines, quotes and indentation. Each hint says what usually causes the error
// and how to write it instead; the library's own words follow in brackets, for searching.
const HINTS: Partial<Record<ErrorCode, string>> = {
  BLOCK_AS_IMPLICIT_KEY:
    'a value holds ": " (a colon and a space), which YAML reads as the start of another key; put the value in quotes, e.g. query: "Acme: pricing"',
  MULTILINE_IMPLICIT_KEY: 'a key and its colon must be on one line; check the indentation of this line and the one above (or quote a value that holds ": ")',
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  BAD_INDENT: 'the indentation does not line up: keys of one block start at the same column, and a [list] or {map} written inline must close on its line',
  MISSING_CHAR: 'a quote or bracket is not closed, or a key has no colon after it',
  BAD_SCALAR_START: 'a value cannot start with @ or ` in YAML; put it in quotes',
  UNEXPECTED_TOKEN: 'a character is out of place here; a value holding : # [ ] { } or a leading - usually needs quotes',
  DUPLICATE_KEY: 'a key is given twice in the same block; keep one',
};

/** A YAML error said plainly, with the library's words kept in brackets. */
export function yamlProblem(code: ErrorCode, message: string): string {
  const hint = HINTS[code];
  return hint ? `YAML: ${hint} (${message})` : `YAML: ${message}`;
}
