import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parse as parseYaml } from 'yaml';
import { loadPipelineDefinition, parsePipelineDefinition, pipelineJsonSchema, PipelineDefinitionError } from '../../src/pipelines';

const EXAMPLES = path.join(__dirname, '../../pipelines');
const exampleFiles = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

const VALID = `name: scan
budget_usd: 2
input:
  items: [{ company: Acme }]
  key: "{{ item.company | slug }}"
step:
  deepresearch:
    query: Research {{ item.company }}
`;

function issuesOf(text: string): string[] {
  try {
    parsePipelineDefinition(text, 'pipelines/x.yaml');
  } catch (error) {
    if (error instanceof PipelineDefinitionError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected the definition to be refused');
}

describe('pipeline definition schema', () => {
  it('accepts a minimal definition and applies the defaults', () => {
    const { definition } = parsePipelineDefinition(VALID, 'x.yaml');
    expect(definition).toMatchObject({
      concurrency: 5,
      start_rate_per_second: 1,
      retries: 2,
      on_item_failure: 'continue',
      outputs: [{ format: 'jsonl' }],
      parameters: {},
    });
  });

  it('names file, line, column, path and rule of a bad enum value', () => {
    expect(issuesOf(VALID.replace('    query:', '    mode: turbo\n    query:'))).toEqual([
      'pipelines/x.yaml:8:11 step.deepresearch.mode: must be one of fast|standard|heavy|max',
    ]);
  });

  it('lists unknown keys at the first of them', () => {
    expect(issuesOf(`${VALID}    foo: 1\n    bar: 2\nextra: true\n`)).toEqual([
      'pipelines/x.yaml:9:5 step.deepresearch: unknown keys: foo, bar',
      'pipelines/x.yaml:11:1 unknown keys: extra',
    ]);
  });

  it('says why a batch refuses a task feature', () => {
    const text = VALID.replace(
      '  deepresearch:\n    query: Research {{ item.company }}',
      '  batch:\n    query: Research {{ item.company }}\n    hitl: { plan_review: true }',
    );
    expect(issuesOf(text)).toEqual(['pipelines/x.yaml:9:5 step.batch: unknown keys: hitl (batch tasks cannot use checkpoints (hitl))']);
  });

  it('requires exactly one step kind', () => {
    expect(issuesOf(`${VALID}  answer: { query: "Q {{ item.company }}" }\n`)).toEqual([
      'pipelines/x.yaml:7:3 step: names deepresearch and answer; give exactly one step kind (deepresearch, batch, workflow, answer, search, contents)',
    ]);
  });

  it('reports a missing required field at the object lacking it', () => {
    expect(issuesOf(VALID.replace('budget_usd: 2\n', ''))).toEqual(['pipelines/x.yaml:1:1 budget_usd: is required']);
  });

  it('reports wrong types with what was given', () => {
    expect(issuesOf(`${VALID}concurrency: 2.5\nretries: many\n`)).toEqual([
      'pipelines/x.yaml:9:14 concurrency: must be an integer (got 2.5)',
      'pipelines/x.yaml:10:10 retries: must be a number (got "many")',
    ]);
  });

  it('refuses a template that names an undeclared parameter or an item where there is none', () => {
    const text = `${VALID.replace('Research {{ item.company }}', 'Research {{ item.company }} in {{ params.regon }}')}synthesis:\n  answer: { query: "Sum up {{ item.company }}" }\n`;
    expect(issuesOf(text)).toEqual([
      'pipelines/x.yaml:8:12 step.deepresearch.query: {{ params.regon }}: params.regon is not a declared parameter (parameters: none)',
      'pipelines/x.yaml:10:20 synthesis.answer.query: {{ item.company }}: item is not available here (use params, pipeline, run)',
    ]);
  });

  it('refuses malformed templates and non-URL urls', () => {
    expect(issuesOf(`${VALID}    urls: ["{{ item.site | shout }}", "not a url"]\n`)).toEqual([
      'pipelines/x.yaml:9:12 step.deepresearch.urls[0]: {{ item.site | shout }}: unknown filter "shout" (filters: slug, json, lower, upper, trim)',
      'pipelines/x.yaml:9:39 step.deepresearch.urls[1]: must be a URL or a template such as {{ item.website }}',
    ]);
  });

  it('checks the schedule: cron fields, time zone and overlap policy', () => {
    expect(issuesOf(`${VALID}schedule:\n  cron: "61 * * * *"\n  timezone: Mars/Olympus\n  overlap: queue\n`)).toEqual([
      'pipelines/x.yaml:10:9 schedule.cron: must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly (Invalid value for minute: 61)',
      'pipelines/x.yaml:11:13 schedule.timezone: must be an IANA time zone such as Europe/Berlin',
      'pipelines/x.yaml:12:12 schedule.overlap: must be one of skip|buffer_one|buffer_all|cancel_other|terminate_other|allow_all',
    ]);
  });

  it('checks parameter defaults against their type and options', () => {
    expect(issuesOf(`${VALID}parameters:\n  since: { type: date, default: last week }\n  depth: { default: deep, options: [quick, thorough] }\n`)).toEqual([
      'pipelines/x.yaml:10:33 parameters.since.default: must be a date in YYYY-MM-DD form (type date)',
      'pipelines/x.yaml:11:21 parameters.depth.default: must be one of the options: quick, thorough',
    ]);
  });

  it('refuses input that names two sources or escapes its folder', () => {
    expect(issuesOf(VALID.replace('  items: [{ company: Acme }]', '  items: [{ company: Acme }]\n  csv: ../secrets.csv'))).toEqual([
      'pipelines/x.yaml:5:8 input.csv: must be a relative path that stays inside its folder (no leading / and no ..)',
      'pipelines/x.yaml:4:3 input: gives items and csv; give exactly one of items, csv or jsonl',
    ]);
    expect(issuesOf(VALID.replace('  items: [{ company: Acme }]', '  items: [{ company: Acme }]\n  jsonl: data/x.jsonl'))).toEqual([
      'pipelines/x.yaml:4:3 input: gives items and jsonl; give exactly one of items, csv or jsonl',
    ]);
  });

  it('reports YAML syntax errors with their position', () => {
    expect(issuesOf('name: a\nname: b\n')).toEqual(['pipelines/x.yaml:2:1 YAML: key "name" is given twice in one block (first at line 1); keep one']);
  });

  it('names the file relative to the working directory when loading', async () => {
    await expect(loadPipelineDefinition(path.join(EXAMPLES, 'competitor-scan.yaml'))).resolves.toMatchObject({ definition: { name: 'competitor-scan' } });
    await expect(loadPipelineDefinition('test/fixtures/no-such.yaml')).rejects.toThrow(/ENOENT/);
  });
});

describe('shipped examples', () => {
  // Formats (uri, email, date) are left to zod; ajv checks the structure an editor sees.
  const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(pipelineJsonSchema());

  it('ships at least three examples', () => {
    expect(exampleFiles.length).toBeGreaterThanOrEqual(3);
  });

  it.each(exampleFiles)('%s validates against the zod schema', async (file) => {
    const { definition } = await loadPipelineDefinition(path.join(EXAMPLES, file));
    expect(`${definition.name}.yaml`).toBe(file);
  });

  it.each(exampleFiles)('%s validates against the generated JSON Schema', (file) => {
    const valid = validate(parseYaml(readFileSync(path.join(EXAMPLES, file), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the JSON Schema refuses what the zod schema refuses structurally', () => {
    expect(validate({ name: 'x', budget_usd: 1, step: { deepresearch: { query: 'q', mode: 'turbo' } } })).toBe(false);
    expect(validate({ name: 'x', budget_usd: 1, step: { deepresearch: { query: 'q' } }, extra: 1 })).toBe(false);
    expect(validate({ name: 'x', budget_usd: 1, step: {} })).toBe(false);
  });
});
