import { compareRuns, diffFields, formatChangeReport } from '../../src/pipelines/change-report';
import { csvCell, csvColumns, jsonlLine, markdownIndex, type ItemResultView } from '../../src/pipelines/fan-in';

const schema = {
  type: 'object',
  properties: { company: { type: 'string' }, pricing: { type: 'object', properties: { plan: {}, usd: {} } }, products: { type: 'array' } },
};

describe('CSV columns', () => {
  it('flattens a column naming a JSON Schema object into one column per property', () => {
    expect(csvColumns({ name: '{{ item.name }}', profile: '{{ result.output }}' }, schema).map((column) => column.header)).toEqual([
      'name',
      'profile.company',
      'profile.pricing',
      'profile.products',
    ]);
    expect(csvColumns({ price: '{{ result.output.pricing }}' }, schema)).toEqual([
      { header: 'price.plan', template: '{{ result.output.pricing.plan }}' },
      { header: 'price.usd', template: '{{ result.output.pricing.usd }}' },
    ]);
  });

  it('keeps a column as written when it is not a bare object path of the schema', () => {
    expect(
      csvColumns({ p: '{{ result.output | json }}', q: 'x {{ result.output }}', r: '{{ result.output.company }}' }, schema).map((column) => column.header),
    ).toEqual(['p', 'q', 'r']);
    expect(csvColumns({ p: '{{ result.output }}' }, undefined).map((column) => column.header)).toEqual(['p']);
  });

  it('writes lists of plain values joined, objects as JSON and missing values empty', () => {
    const scope = { result: { output: { products: ['a', 'b'], pricing: { plan: 'pro' } } } };
    expect(csvCell('{{ result.output.products }}', scope)).toBe('a; b');
    expect(csvCell('{{ result.output.pricing }}', scope)).toBe('{"plan":"pro"}');
    expect(csvCell('{{ result.output.funding }}', scope)).toBe('');
    expect(csvCell('plan: {{ result.output.pricing.plan }}', scope)).toBe('plan: pro');
  });
});

describe('JSONL and the Markdown index', () => {
  const view: ItemResultView = {
    key: 'acme',
    index: 0,
    status: 'completed',
    costUsd: 0.1,
    attempts: 1,
    output: { company: 'Acme' },
    report: { key: 'research/x/report.json', uri: 'file:///a/research/x/report.json' },
    files: [],
  };

  it('writes one line per item with its input, output and report', () => {
    expect(JSON.parse(jsonlLine(view, { name: 'Acme' }))).toEqual({
      key: 'acme',
      index: 0,
      status: 'completed',
      cost_usd: 0.1,
      attempts: 1,
      item: { name: 'Acme' },
      output: { company: 'Acme' },
      report: 'file:///a/research/x/report.json',
    });
  });

  it('links each report relative to the index', () => {
    const index = markdownIndex({
      title: 't',
      indexKey: 'pipelines/p/r/outputs/results.md',
      views: [view, { ...view, key: 'b|c', status: 'failed', report: undefined, error: 'no\nway' }],
      totals: { spentUsd: 0.1, budgetUsd: 1 },
    });
    expect(index).toContain('2 items: 1 completed, 1 failed, 0 cancelled, 0 not started. Spent 0.10 of 1.00 USD.');
    expect(index).toContain('| acme | completed | 0.1000 | [report.json](../../../../research/x/report.json) |');
    expect(index).toContain('| b\\|c | failed | 0.1000 | no way |');
  });
});

describe('the change report', () => {
  it('compares structured outputs field by field, and lists of values as what came and went', () => {
    expect(diffFields({ a: 1, b: { c: 'x' }, list: ['p', 'q'] }, { a: 1, b: { c: 'y' }, list: ['q', 'r'], d: true }, 'output')).toEqual([
      { path: 'output.b.c', before: 'x', after: 'y' },
      { path: 'output.d', after: true },
      { path: 'output.list', before: ['p'], after: ['r'] },
    ]);
  });

  it('names new, removed and changed items, and counts the unchanged', () => {
    const previous = new Map([
      ['a', { status: 'completed', output: { x: 1 } }],
      ['b', { status: 'completed', output: { x: 1 } }],
      ['c', { status: 'failed' }],
    ]);
    const current = new Map([
      ['a', { status: 'completed', output: { x: 1 } }],
      ['b', { status: 'completed', output: { x: 2 } }],
      ['d', { status: 'completed' }],
    ]);
    const report = compareRuns({ run: 'w1', items: previous }, { run: 'w2', items: current });
    expect(report).toEqual({
      previousRun: 'w1',
      currentRun: 'w2',
      added: ['d'],
      removed: ['c'],
      unchanged: 1,
      changed: [{ key: 'b', fields: [{ path: 'output.x', before: 1, after: 2 }] }],
    });
    const markdown = formatChangeReport(report, 'scan');
    expect(markdown).toContain('Run w2: 1 new, 1 removed, 1 changed, 1 unchanged.');
    expect(markdown).toContain('| output.x | 1 | 2 |');
  });

  it('reports a status change of an item', () => {
    const report = compareRuns(
      { run: '1', items: new Map([['a', { status: 'failed' }]]) },
      { run: '2', items: new Map([['a', { status: 'completed', output: 'text' }]]) },
    );
    expect(report.changed).toEqual([
      {
        key: 'a',
        fields: [
          { path: 'status', before: 'failed', after: 'completed' },
          { path: 'output', after: 'text' },
        ],
      },
    ]);
  });
});
