import { parse } from 'csv-parse/sync';
import { csvText } from '../../src/activities/csv-text';
import { outputSchema } from '../../src/pipelines/definition-schema';

const hostile = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", '-2+3', '@SUM(A1)', '\tlead', '\rlead'];

describe('CSV outputs and spreadsheet formulas', () => {
  test('a definition may turn escape_formulas off (it is on when omitted: runs started before it existed escape too)', () => {
    expect(outputSchema.parse({ format: 'csv', columns: { a: '{{ item.a }}' }, escape_formulas: false })).toMatchObject({ escape_formulas: false });
  });

  test('cells starting with = + - @ tab or CR are prefixed with a quote; others are untouched', () => {
    const rows = parse(
      csvText(
        ['a'],
        [...hostile, 'plain', '3'].map((value) => [value]),
        { escapeFormulas: true },
      ),
    );
    expect(rows.slice(1).map((row) => row[0])).toEqual([...hostile.map((value) => `'${value}`), 'plain', '3']);
  });

  test('with escape_formulas off the cells are written as given', () => {
    const rows = parse(
      csvText(
        ['a'],
        hostile.map((value) => [value]),
        { escapeFormulas: false },
      ),
    );
    expect(rows.slice(1).map((row) => row[0])).toEqual(hostile);
  });
});
