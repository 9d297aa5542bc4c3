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
