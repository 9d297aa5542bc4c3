import { stringify } from 'csv-stringify/sync';

/**
 * A CSV file's text: a header row, then the rows. With `escapeFormulas`, csv-stringify prefixes a quote
 * to cells starting with = + - @ tab or CR, so a spreadsheet shows text an item's data put there
 * (`=HYPERLINK(...)`, `+cmd|...`) instead of running it.
 */
export function csvText(header: readonly string[], rows: readonly string[][], options: { escapeFormulas: boolean }): string {
  return stringify([[...header], ...rows], { escape_formulas: options.escapeFormulas });
}
