import { stringify } from 'csv-stringify/sync';

/**
 * A CSV file's text: a header row, then the rows. With `escapeFormulas`, csv-stringify prefixes a quote
 * to cells starting with = + - @ tab or CR, so a spreadsheet shows text an item's data put there
 * (`=HYPERLINK(...)`, `+cmd|...`) instead of running it.
 */
export function csvText(header: readonly string[], rows: readonly string[][], options: { escapeFormulas: boolean }): string {
  return csvRows([[...header], ...rows], options);
}

/**
 * The text of some rows of a CSV file, each ending in a newline: a file written a few rows at a time
 * (header first) reads exactly as `csvText` of all its rows, since each row is written on its own.
 */
export function csvRows(rows: ReadonlyArray<readonly string[]>, options: { escapeFormulas: boolean }): string {
  return stringify(rows as string[][], { escape_formulas: options.escapeFormulas });
}
