import { renderReport, safeFileName, safeSegment, uniqueName, withExtension } from '../../src/activities/filenames';

describe('safeFileName', () => {
  test.each([
    ['../../etc/passwd', 'passwd'],
    ['/abs/path/report.csv', 'report.csv'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['..', 'fallback'],
    ['.hidden', 'hidden'],
    ['', 'fallback'],
    ['Market share (2025).xlsx', 'Market_share_2025_.xlsx'],
  ])('%j becomes %j', (name, expected) => {
    expect(safeFileName(name, 'fallback')).toBe(expected);
  });

  test('keeps the end of a very long name, where the extension is', () => {
    const name = safeFileName(`${'x'.repeat(300)}.csv`, 'f');
    expect(name).toHaveLength(100);
    expect(name.endsWith('.csv')).toBe(true);
  });
});

describe('safeSegment', () => {
  test('keeps a clean id and gives ids that needed cleaning distinct suffixes', () => {
    expect(safeSegment('item-7')).toBe('item-7');
    expect(safeSegment('a/b')).not.toBe(safeSegment('a_b'));
    expect(safeSegment('a/b')).toMatch(/^b-[0-9a-f]{8}$/);
  });
});

describe('names', () => {
  test('uniqueName numbers repeats before the extension', () => {
    const taken = new Set<string>();
    expect([uniqueName('a.csv', taken), uniqueName('a.csv', taken), uniqueName('a.csv', taken)]).toEqual(['a.csv', 'a-2.csv', 'a-3.csv']);
  });

  test('withExtension adds one only when missing', () => {
    expect(withExtension('Model', '.xlsx')).toBe('Model.xlsx');
    expect(withExtension('model.csv', '.xlsx')).toBe('model.csv');
  });

  test('a JSON output sent as text is stored as sent', () => {
    expect(renderReport({ output: '{"a":1}', output_type: 'json' })).toEqual({ fileName: 'report.json', body: '{"a":1}', contentType: 'application/json' });
  });
});
