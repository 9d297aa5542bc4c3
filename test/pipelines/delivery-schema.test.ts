import { parsePipelineDefinition, PipelineDefinitionError } from '../../src/pipelines/load';
import { refuseOwnWebhookUrl } from '../../src/activities/context';

const base = (extra: string, step = 'answer:\n    query: "About {{ item }}"') => `
name: deliver
input:
  items: [Acme]
  key: "{{ item | slug }}"
step:
  ${step}
budget_usd: 1
${extra}`;

function problems(yaml: string): string {
  try {
    parsePipelineDefinition(yaml, '/tmp/deliver.yaml');
  } catch (error) {
    if (error instanceof PipelineDefinitionError) return error.message;
    throw error;
  }
  return '';
}

describe('delivery keys of a definition', () => {
  it('takes notify: URLs (HTTPS, or HTTP on loopback) and refuses others by name', () => {
    const loaded = parsePipelineDefinition(base('notify: ["https://hooks.example.com/runs", "http://127.0.0.1:9000/x"]'), '/tmp/deliver.yaml');
    expect(loaded.definition.notify).toEqual(['https://hooks.example.com/runs', 'http://127.0.0.1:9000/x']);
    expect(problems(base('notify: ["http://hooks.example.com/runs"]'))).toMatch(/notify.*0.*HTTPS/s);
  });

  it('splits a postgres output into sinks and keeps the results as JSONL when no file output is named', () => {
    const loaded = parsePipelineDefinition(base('outputs:\n  - postgres: { url_env: DATABASE_URL, table: research.results }'), '/tmp/deliver.yaml');
    expect(loaded.definition.sinks).toEqual([{ postgres: { url_env: 'DATABASE_URL', table: 'research.results' } }]);
    expect(loaded.definition.outputs).toEqual([{ format: 'jsonl' }]);
    const both = parsePipelineDefinition(
      base('outputs:\n  - format: csv\n    columns: { name: "{{ item }}" }\n  - postgres: { url_env: DATABASE_URL, table: results }'),
      '/tmp/deliver.yaml',
    );
    expect(both.definition.outputs.map((output) => output.format)).toEqual(['csv']);
    expect(both.definition.sinks).toHaveLength(1);
  });

  it('refuses a connection URL in url_env and a table name SQL could misread', () => {
    expect(problems(base('outputs:\n  - postgres: { url_env: "postgres://u:p@h/db", table: results }'))).toContain('environment variable');
    expect(problems(base('outputs:\n  - postgres: { url_env: DATABASE_URL, table: "results; drop table x" }'))).toContain('table name');
  });

  it("refuses a step's own webhook_url, which would replace the intake's completion webhook", () => {
    const message = problems(base('', 'deepresearch:\n    query: "About {{ item }}"\n    webhook_url: https://mine.example.com/hook'));
    expect(message).toContain('webhook_url');
    expect(message).toContain('notify:');
  });

  it("refuses, before any create, a request whose own webhook_url would replace the worker's intake webhook", () => {
    expect(() => refuseOwnWebhookUrl('https://mine.example.com/hook', 'https://intake.example.com')).toThrow(/notify:/);
    expect(() => refuseOwnWebhookUrl('https://mine.example.com/hook', undefined)).not.toThrow();
    expect(() => refuseOwnWebhookUrl(undefined, 'https://intake.example.com')).not.toThrow();
  });
});

describe('list and object parameters', () => {
  const specs = {
    tags: { type: 'list' as const },
    filters: { type: 'object' as const },
    regions: { type: 'list' as const, options: ['EU', 'US'] },
  };

  it('take JSON values, and command-line text as JSON or comma-separated', async () => {
    const { resolveParameters } = await import('../../src/pipelines/parameters');
    expect(resolveParameters(specs, { tags: ['a', 'b'], filters: { size: 3 }, regions: ['EU'] })).toEqual({
      tags: ['a', 'b'],
      filters: { size: 3 },
      regions: ['EU'],
    });
    expect(resolveParameters(specs, { tags: 'a, b', filters: '{"size":3}', regions: '["US"]' }, { textValues: true })).toEqual({
      tags: ['a', 'b'],
      filters: { size: 3 },
      regions: ['US'],
    });
  });

  it('name each value that breaks its type or options', async () => {
    const { resolveParameters, ParameterError } = await import('../../src/pipelines/parameters');
    let problems: readonly string[] = [];
    try {
      resolveParameters(specs, { tags: 'a', filters: ['x'], regions: ['EU', 'APAC'] });
    } catch (error) {
      if (!(error instanceof ParameterError)) throw error;
      problems = error.problems;
    }
    expect(problems).toEqual([
      'parameter tags: must be a list (a JSON array of strings, numbers or booleans) (got "a")',
      'parameter filters: must be an object (a JSON object) (got ["x"])',
      'parameter regions: must be one of EU, US (got ["EU","APAC"])',
    ]);
  });

  it('reach templates: a list as JSON, an object by its fields', async () => {
    const loaded = parsePipelineDefinition(
      `
name: lists
parameters:
  tags: { type: list, default: [a, b] }
  filters: { type: object, default: { region: EU } }
step:
  answer:
    query: "{{ params.tags }} in {{ params.filters.region }}"
budget_usd: 1
`,
      '/tmp/lists.yaml',
    );
    expect(loaded.definition.parameters.tags!.default).toEqual(['a', 'b']);
    const { renderTemplate } = await import('../../src/shared/template');
    expect(renderTemplate('{{ params.tags }} in {{ params.filters.region }}', { params: { tags: ['a', 'b'], filters: { region: 'EU' } } })).toBe(
      '["a","b"] in EU',
    );
  });
});

describe('NOTIFY_SECRET', () => {
  it('is read hidden from printing, and a value in another form is refused by name without showing it', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config');
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const config = loadConfig({ NOTIFY_SECRET: secret });
    expect(config.notifySecret).toBe(secret);
    expect(JSON.stringify(config)).not.toContain(secret.slice(6));
    let error: unknown;
    try {
      loadConfig({ NOTIFY_SECRET: 'plain-text-secret' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toContain('NOTIFY_SECRET');
    expect(String((error as Error).message)).not.toContain('plain-text-secret');
  });
});
