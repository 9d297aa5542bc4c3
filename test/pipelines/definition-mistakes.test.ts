import { parsePipelineDefinition, PipelineDefinitionError } from '../../src/pipelines';

/** Mistakes in a definition that used to pass or read as parser jargon: each is now named plainly where it is written. */
function issuesOf(text: string): string[] {
  try {
    parsePipelineDefinition(text, 'x.yaml');
  } catch (error) {
    if (error instanceof PipelineDefinitionError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected the definition to be refused');
}

const HEAD = `name: scan
budget_usd: 2
input:
  items: [{ company: Acme }]
  key: "{{ item.company | slug }}"
`;

const SCHEMA_STEP = `step:
  answer:
    query: Profile {{ item.company }}
    structured_output:
      type: object
      properties:
        headcount: { type: integer }
        hq: { type: object, properties: { city: { type: string } } }
`;

describe('definition mistakes said plainly', () => {
  it('explains an unquoted value holding ": " instead of "nested mappings in compact mappings", once for the line', () => {
    const issues = issuesOf(`${HEAD}step:\n  search:\n    query: Acme: pricing: 2026\n`);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^x\.yaml:8:12 YAML: a value holds ": " \(a colon and a space\).*put the value in quotes, e\.g\. query: "Acme: pricing"/);
    expect(issues[0]).toContain('(Nested mappings are not allowed in compact mappings)');
  });

  it('says to indent with spaces when a tab indents', () => {
    expect(issuesOf('name: a\nstep:\n\tsearch: {}\n')[0]).toContain('YAML: indent with spaces, not tabs');
  });

  it('reports every repeated key, the third as well as the second, with where it was first', () => {
    expect(issuesOf('name: a\nname: b\nname: c\n')).toEqual([
      'x.yaml:2:1 YAML: key "name" is given twice in one block (first at line 1); keep one',
      'x.yaml:3:1 YAML: key "name" is given twice in one block (first at line 1); keep one',
    ]);
  });

  it('suggests the key an unknown one was meant to be, at any depth', () => {
    const issues = issuesOf(`${HEAD.replace('budget_usd', 'budget_uds')}step:\n  search:\n    querry: Acme\n`);
    expect(issues).toContain('x.yaml:8:5 step.search: unknown keys: querry (did you mean query?)');
    expect(issues).toContain('x.yaml:2:1 unknown keys: budget_uds (did you mean budget_usd?)');
    expect(issuesOf(`${HEAD}step:\n  search: { query: q }\noutputs:\n  - format: csv\n    colums: { a: b }\n`)).toContain(
      'x.yaml:10:5 outputs[0]: unknown keys: colums (did you mean columns?)',
    );
  });

  it('suggests nothing for a key that resembles no known one', () => {
    expect(issuesOf(`${HEAD}step:\n  search: { query: q, colour: red }\n`)).toContain('x.yaml:7:23 step.search: unknown keys: colour');
  });

  it("refuses an output column naming a field the step's output schema lacks, when the definition is read", () => {
    const outputs = `outputs:\n  - format: csv\n    columns:\n      staff: "{{ result.output.head_count }}"\n      city: "{{ result.output.hq.town }}"\n      ok: "{{ result.output.hq.city }}"\n`;
    expect(issuesOf(`${HEAD}${SCHEMA_STEP}${outputs}`)).toEqual([
      'x.yaml:17:14 outputs[0].columns.staff: {{ result.output.head_count }}: the step\'s output schema has no field "head_count" at result.output (fields: headcount, hq); did you mean headcount?',
      'x.yaml:18:13 outputs[0].columns.city: {{ result.output.hq.town }}: the step\'s output schema has no field "town" at result.output.hq (fields: city)',
    ]);
  });

  it('refuses a column naming a result field that does not exist, or output fields of a step whose output is text', () => {
    const outputs = (template: string): string => `outputs:\n  - format: csv\n    columns:\n      x: "${template}"\n`;
    expect(issuesOf(`${HEAD}${SCHEMA_STEP}${outputs('{{ result.cost }}')}`)[0]).toContain(
      '{{ result.cost }}: result has no field "cost" (fields: status, output, cost_usd, attempts, possibly_charged_usd, error, report, sources, sources_count); did you mean cost_usd?',
    );
    expect(issuesOf(`${HEAD}step:\n  answer: { query: q }\n${outputs('{{ result.output.city }}')}`)[0]).toContain(
      'the Answer step has no structured_output, so its output is text: use {{ result.output }}',
    );
    expect(issuesOf(`${HEAD}step:\n  deepresearch: { query: q }\n${outputs('{{ result.output.city }}')}`)[0]).toContain(
      'so it writes a Markdown report and result.output is empty: use {{ result.report }}',
    );
    expect(() => parsePipelineDefinition(`${HEAD}step:\n  search: { query: q }\n${outputs('{{ result.output.0.url }}')}`, 'x.yaml')).not.toThrow();
  });

  it('lets the Markdown digest choose its columns like a CSV, and keeps escape_formulas to CSVs', () => {
    const markdown = `${HEAD}${SCHEMA_STEP}outputs:\n  - format: markdown\n    columns: { company: "{{ item.company }}", staff: "{{ result.output.headcount }}" }\n`;
    expect(parsePipelineDefinition(markdown, 'x.yaml').definition.outputs[0]).toMatchObject({ format: 'markdown', columns: { company: '{{ item.company }}' } });
    expect(issuesOf(`${HEAD}${SCHEMA_STEP}outputs:\n  - format: jsonl\n    escape_formulas: false\n`)).toEqual([
      'x.yaml:16:22 outputs[0].escape_formulas: only applies to csv',
    ]);
  });
});
