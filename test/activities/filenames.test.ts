import { contentTypeOf, deliverableExtension, renderReport, safeFileName, safeSegment, uniqueName, withExtension } from '../../src/activities/filenames';

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

describe('content types and extensions', () => {
  test.each([
    ['r/report.md', 'text/markdown; charset=utf-8'],
    ['r/report.json', 'application/json'],
    ['r/report.toon', 'text/plain; charset=utf-8'],
    ['r/notes.TXT', 'text/plain; charset=utf-8'],
    ['r/table.csv', 'text/csv'],
    ['r/items.jsonl', 'application/x-ndjson'],
    ['r/report.pdf', 'application/pdf'],
    ['r/images/chart.png', 'image/png'],
    ['r/images/photo.jpeg', 'image/jpeg'],
    ['r/images/logo.svg', 'image/svg+xml'],
    ['r/model.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['r/memo.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['r/deck.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    ['r/no-extension', 'application/octet-stream'],
    ['r/data.unknownext', 'application/octet-stream'],
  ])('%s is stored as %s', (key, type) => {
    expect(contentTypeOf(key)).toBe(type);
  });

  test.each([
    ['csv', '.csv'],
    ['Excel', '.xlsx'],
    ['xlsx', '.xlsx'],
    ['powerpoint', '.pptx'],
    ['pptx', '.pptx'],
    ['word', '.docx'],
    ['DOCX', '.docx'],
    ['pdf', '.pdf'],
    ['text/csv', '.csv'],
    ['application/pdf', '.pdf'],
    ['chart', undefined],
    ['constructor', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('a deliverable of type %j gets the extension %j', (type, extension) => {
    expect(deliverableExtension(type)).toBe(extension);
  });
});
