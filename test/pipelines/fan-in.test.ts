import { compareRuns, diffFields, formatChangeReport } from '../../src/pipelines/change-report';
import { addToTally, emptyTally, markdownDigest, reportSummary, type DigestItem } from '../../src/pipelines/digest';
import { csvCell, csvColumns, csvColumnsWithTotals, jsonlLine, resultScope, type ItemResultView } from '../../src/pipelines/fan-in';

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
    sourcesCount: 0,
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
});

describe('the CSV cost and sources columns', () => {
  it('end every CSV with cost_usd and sources, unless its own columns give them', () => {
    expect(csvColumnsWithTotals({ company: '{{ item.name }}' }, undefined).map((column) => column.header)).toEqual(['company', 'cost_usd', 'sources']);
    expect(csvColumnsWithTotals({ spent: '{{ result.cost_usd }}', sources: '{{ result.sources | json }}' }, undefined).map((column) => column.header)).toEqual([
      'spent',
      'sources',
    ]);
  });

  it('fills them from the item: what it cost and how many sources it cites, and lists the sources', () => {
    const scope = {
      result: resultScope({
        key: 'a',
        index: 0,
        status: 'completed',
        costUsd: 0.0123,
        attempts: 1,
        files: [],
        sourcesCount: 2,
        sources: [{ url: 'https://a.example/1' }, { url: 'https://a.example/2' }],
      }),
    };
    expect(csvCell('{{ result.cost_usd }}', scope)).toBe('0.0123');
    expect(csvCell('{{ result.sources_count }}', scope)).toBe('2');
    expect(csvCell('{{ result.sources }}', scope)).toBe('https://a.example/1; https://a.example/2');
  });
});

describe('the Markdown digest', () => {
  const item = (overrides: Partial<DigestItem> = {}): DigestItem => ({
    key: 'acme-com',
    status: 'completed',
    costUsd: 0.1,
    fields: [{ name: 'company', value: 'Acme' }],
    sections: [
      {
        fields: [{ name: 'headcount', value: '120' }],
        answer: 'Acme makes **flow batteries**.',
        sources: [{ title: 'Acme home', url: 'https://acme.example/' }],
        sourcesCount: 3,
        costUsd: 0.1,
      },
    ],
    ...overrides,
  });

  it('shows totals, then per item its fields, answer, sources and cost, with no link but the sources', () => {
    const digest = markdownDigest({
      title: 'scan: run r1',
      items: [item(), item({ key: 'b', status: 'failed', costUsd: 0, sections: [], error: 'refused: <b>no</b>' })],
      totals: { spentUsd: 0.1, budgetUsd: 1 },
    });
    expect(digest).toContain('**2 items**: 1 completed, 1 failed, 0 cancelled, 0 not started.');
    expect(digest).toContain('**Cost**: 0.1000 of 1.00 USD spent, 0.1000 USD per completed item on average. **Sources cited**: 3.');
    expect(digest).toContain('### 1. acme-com\n\n*completed* · 0.1000 USD\n\n- **company**: Acme\n\n> Acme makes **flow batteries**.\n\n- **headcount**: 120');
    expect(digest).toContain('Sources (3): [Acme home](<https://acme.example/>) and 2 more');
    expect(digest).toContain('**Error**: refused: &lt;b&gt;no&lt;/b&gt;');
    expect(digest.match(/\]\(/g)).toHaveLength(1);
  });

  it('shows item data literally: no Markdown, HTML or links of its own, and no link that is not a web address', () => {
    const digest = markdownDigest({
      title: 't',
      items: [
        item({
          fields: [{ name: 'name', value: '[click](file:///etc/passwd) <script>x</script> | *bold*' }],
          sections: [{ fields: [], sources: [{ title: 'local', url: 'file:///etc/passwd' }], sourcesCount: 1, costUsd: 0 }],
        }),
      ],
      totals: { spentUsd: 0, budgetUsd: 1 },
    });
    expect(digest).toContain('- **name**: \\[click\\](file:///etc/passwd) &lt;script&gt;x&lt;/script&gt; \\| \\*bold\\*');
    expect(digest).toContain('Sources (1): local');
    expect(digest).not.toMatch(/[^\\]\]\(/);
  });

  it('names each section of an item that has several, with its cost', () => {
    const [section] = item().sections;
    const digest = markdownDigest({
      title: 't',
      items: [
        item({
          sections: [
            { ...section!, label: 'profile' },
            { ...section!, label: 'news', costUsd: 0.005 },
          ],
        }),
      ],
      totals: { spentUsd: 0, budgetUsd: 1 },
    });
    expect(digest).toContain('#### profile (0.1000 USD)');
    expect(digest).toContain('#### news (0.0050 USD)');
  });

  it('counts every item of a large run in its totals and details the first, pointing to the CSV and JSONL for the rest', () => {
    const tally = emptyTally();
    for (let index = 0; index < 5_000; index++) addToTally(tally, { status: index % 10 === 0 ? 'failed' : 'completed', costUsd: 0.01, sourcesCount: 2 });
    const digest = markdownDigest({ title: 't', items: [item()], tally, totals: { spentUsd: 45, budgetUsd: 100 } });
    expect(digest).toContain('**5000 items**: 4500 completed, 500 failed, 0 cancelled, 0 not started.');
    expect(digest).toContain('0.0100 USD per completed item on average. **Sources cited**: 10000.');
    expect(digest).toContain("*4999 more items past the first 1: their results are in the run's CSV and JSONL outputs.*");
  });

  it("takes a report's summary section, or else its first paragraphs", () => {
    expect(reportSummary('# Acme\n\nIntro.\n\n## Executive summary\n\nAcme leads.\n\nIt grows.\n\n## Details\n\nLong text.')).toBe('Acme leads.\n\nIt grows.');
    expect(reportSummary('# Acme\n\nFirst paragraph.\n\n## Market\n\nSecond.', 30)).toBe('First paragraph.\n\nSecond.');
    expect(reportSummary(`# T\n\n${'word '.repeat(400)}`, 100).length).toBeLessThanOrEqual(101);
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
