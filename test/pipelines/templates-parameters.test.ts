import {
  parsePipelineDefinition,
  parseSetArguments,
  ParameterError,
  renderItemRequest,
  renderTemplate,
  resolveParameters,
  ItemError,
  keyItems,
  TemplateError,
} from '../../src/pipelines';
import type { RunContext } from '../../src/pipelines';

const context: RunContext = { params: { region: 'EU' }, pipeline: { name: 'scan' }, run: { key: 'r1', date: '2026-11-23' } };

describe('templates', () => {
  it('fills item, params, pipeline and run values, with filters', () => {
    expect(
      renderTemplate('{{ item.company }} in {{params.region}} ({{ item.company | slug }}, {{ run.key }})', { ...context, item: { company: 'Acme Café GmbH' } }),
    ).toBe('Acme Café GmbH in EU (acme-cafe-gmbh, r1)');
    expect(renderTemplate('{{ item | upper }} {{ tags | json }} [{{ name | trim }}]', { item: 'x', tags: ['a'], name: ' n ' })).toBe('X ["a"] [n]');
  });

  it('renders objects as JSON', () => {
    expect(renderTemplate('{{ item.tags }}', { item: { tags: ['a', 'b'] } })).toBe('["a","b"]');
  });

  it('throws naming a missing variable and what the item has', () => {
    expect(() => renderTemplate('Research {{ item.website }}', { item: { company: 'Acme', domain: 'acme.example' } })).toThrow(
      new TemplateError('{{ item.website }}: missing variable item.website (item has: company, domain)'),
    );
  });

  it('treats null as missing and can render missing values empty where asked', () => {
    expect(() => renderTemplate('{{ item.site }}', { item: { site: null } })).toThrow('{{ item.site }}: item.site is null');
    expect(renderTemplate('[{{ result.output.x }}]', {}, { missing: 'empty' })).toBe('[]');
  });
});

describe('item rendering', () => {
  const { definition } = parsePipelineDefinition(
    `name: scan
budget_usd: 5
parameters: { region: { default: EU } }
input:
  items: [{ company: Acme }]
  key: "{{ item.company | slug }}"
step:
  deepresearch:
    query: Research {{ item.company }} in {{ params.region }}
    urls: ["https://{{ item.domain }}"]
`,
    'x.yaml',
  );

  it('renders and checks the request its route accepts', () => {
    const request = renderItemRequest(definition, { index: 0, where: 'item 1', key: 'acme', value: { company: 'Acme', domain: 'acme.example' } }, context);
    expect(request).toEqual({ kind: 'deepresearch', request: { query: 'Research Acme in EU', urls: ['https://acme.example'] } });
  });

  it('fails before anything runs, naming the item key and the variable', () => {
    const render = () => renderItemRequest(definition, { index: 0, where: 'data/x.csv:3', key: 'acme', value: { company: 'Acme' } }, context);
    expect(render).toThrow(ItemError);
    expect(render).toThrow('item "acme" (data/x.csv:3): step.deepresearch: {{ item.domain }}: missing variable item.domain (item has: company)');
  });

  it('checks the rendered request with the route schema', () => {
    const render = () =>
      renderItemRequest(definition, { index: 0, where: 'item 1', key: 'acme', value: { company: 'Acme', domain: 'not a host/ with spaces' } }, context);
    expect(render).toThrow('item "acme" (item 1): step.deepresearch.urls[0]: must be a URL');
  });
});

describe('item keys', () => {
  it('refuses keys unsafe in workflow ids, naming where the item was read', () => {
    expect(() => keyItems([{ index: 0, where: 'data/x.csv:2', value: { company: 'Acme Corp' } }], '{{ item.company }}', context)).toThrow(
      'data/x.csv:2: item key "Acme Corp" must be 1 to 128 letters, digits and . _ : @ + ~ -, starting with a letter or digit',
    );
  });

  it('refuses duplicate keys, naming both places, across pages when given the seen keys', () => {
    const seen = new Map<string, string>();
    keyItems([{ index: 0, where: 'x.csv:2', value: { id: 'a' } }], '{{ item.id }}', context, seen);
    expect(() => keyItems([{ index: 1, where: 'x.csv:9', value: { id: 'a' } }], '{{ item.id }}', context, seen)).toThrow(
      'item "a" (x.csv:9): duplicate item key "a" (also x.csv:2); keys must be unique in a run',
    );
  });
});

describe('parameters', () => {
  const specs = {
    region: { type: 'string' as const, default: 'EU', options: ['EU', 'US'] },
    since: { type: 'date' as const },
    limit: { type: 'integer' as const, default: 5 },
    strict: { type: 'boolean' as const, default: false },
  };

  it('takes defaults and converts --set text to each type', () => {
    expect(resolveParameters(specs, parseSetArguments(['since=2026-01-01', 'limit=12', 'strict=true']), { textValues: true })).toEqual({
      region: 'EU',
      since: '2026-01-01',
      limit: 12,
      strict: true,
    });
  });

  it('names every bad, unknown or missing parameter', () => {
    const resolve = () => resolveParameters(specs, parseSetArguments(['region=APAC', 'limit=2.5', 'strict=yes', 'colour=red']), { textValues: true });
    expect(resolve).toThrow(ParameterError);
    expect(resolve).toThrow(
      [
        'unknown parameter "colour" (parameters: region, since, limit, strict)',
        'parameter region: must be one of EU, US (got "APAC")',
        'parameter since: is required (no default; give --set since=...)',
        'parameter limit: must be an integer (got 2.5)',
        'parameter strict: must be true or false (got "yes")',
      ].join('\n'),
    );
  });

  it('refuses --set without name=value', () => {
    expect(() => parseSetArguments(['region'])).toThrow('--set region: expected name=value');
  });
});

describe('typed service workflow parameters', () => {
  const context: RunContext = { params: { depth: 3, strict: true }, pipeline: { name: 'p' }, run: { key: 'r', date: '2026-11-23' } };
  const definition = parsePipelineDefinition(
    `
name: p
parameters:
  depth: { type: number, default: 3 }
  strict: { type: boolean, default: true }
input:
  items: [{ company: Acme, max: 4 }]
  key: "{{ item.company | slug }}"
step:
  workflow:
    workflow_id: competitor-scan
    params:
      company: "{{ item.company }}"
      max_competitors: "{{ item.max }}"
      depth: "{{ params.depth }}"
      strict: "{{ params.strict }}"
      label: "top {{ item.max }}"
      quoted: "{{ item.max | json }}"
budget_usd: 5
`,
    'p.yaml',
  ).definition;

  it('a value given whole keeps its number or boolean type; text around it, or a filter, makes text', () => {
    const request = renderItemRequest(definition, { key: 'acme', index: 0, where: 'item 1', value: { company: 'Acme', max: 4 } }, context);
    expect(request.kind === 'workflow' && request.preview.params).toEqual({
      company: 'Acme',
      max_competitors: 4,
      depth: 3,
      strict: true,
      label: 'top 4',
      quoted: '4',
    });
  });

  it('a missing variable in a parameter still names the item and the variable', () => {
    expect(() => renderItemRequest(definition, { key: 'acme', index: 0, where: 'item 1', value: { company: 'Acme' } }, context)).toThrow(
      /item 1.*step\.workflow\.params.*item\.max/,
    );
  });
});
