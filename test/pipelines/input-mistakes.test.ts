import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pipelineKeyActivities } from '../../src/activities/pipeline-keys';
import { main } from '../../src/cli';
import { captureCli } from '../support/capture-io';
import { itemSource, loadPipelineDefinition } from '../../src/pipelines';

/** Mistakes of an input that used to pass silently: a missing or empty file, unknown fields, every repeated key. */
describe('inputs checked before a run', () => {
  const cli = captureCli('rp-input-');
  const { out, err } = cli;

  /** A definition over `companies.csv` (written with `csv`), with `extra` appended. */
  function definition(csv: string | undefined, extra = ''): string {
    if (csv !== undefined) writeFileSync(path.join(cli.folder, 'companies.csv'), csv);
    const file = path.join(cli.folder, 'scan.yaml');
    writeFileSync(
      file,
      `name: scan
budget_usd: 5
input:
  csv: companies.csv
  key: "{{ item.domain | slug }}"
step:
  answer:
    query: "Where is {{ item.name }} based?"
outputs:
  - format: csv
    columns:
      company: "{{ item.name }}"
      answer: "{{ result.output }}"
${extra}`,
    );
    return file;
  }

  it('validate reads the input: a missing CSV is an error, not "ok"', async () => {
    const file = definition(undefined);
    await expect(main(['pipelines', 'validate', file])).resolves.toBe(1);
    expect(err()).toBe(`${file}: ${path.join(cli.folder, 'companies.csv')}: cannot read input file (ENOENT)\n`);
    expect(out()).toBe('');
  });

  it('validate reports a CSV that cannot be parsed, at its line', async () => {
    const file = definition('name,domain\nAcme,acme.example\n"Beta,beta.example\n');
    await expect(main(['pipelines', 'validate', file])).resolves.toBe(1);
    expect(err()).toMatch(/companies\.csv:3: .*quote/i);
  });

  it('validate prints ok with the number of items when the input is sound', async () => {
    const file = definition('name,domain\nAcme,acme.example\nBeta,beta.example\n');
    await expect(main(['pipelines', 'validate', file])).resolves.toBe(0);
    expect(out()).toBe(`${file}: ok (scan, 2 items)\n`);
  });

  it('validate checks the fields the templates read against the CSV header, with a did-you-mean', async () => {
    const file = definition('nmae,domain\nAcme,acme.example\n');
    await expect(main(['pipelines', 'validate', file])).resolves.toBe(1);
    const header = `the CSV header of ${path.join(cli.folder, 'companies.csv')} has no column "name" (columns: nmae, domain); did you mean nmae?`;
    expect(err()).toBe(`${file}: step.answer.query: {{ item.name }}: ${header}\n${file}: outputs[0].columns.company: {{ item.name }}: ${header}\n`);
  });

  it('validate reports every repeated key with all its places, the third as well', async () => {
    const file = definition('name,domain\nA,a.example\nB,a.example\nC,a.example\nD,b.example\nE,b.example\n');
    await expect(main(['pipelines', 'validate', file, '--json'])).resolves.toBe(1);
    const result = JSON.parse(out()) as { valid: boolean; files: Array<{ valid: boolean; issues: Array<{ path: string; message: string }> }> };
    expect(result.valid).toBe(false);
    const csv = path.join(cli.folder, 'companies.csv');
    expect(result.files[0]!.issues).toEqual([
      {
        file,
        path: 'input',
        message: expect.stringContaining(`duplicate item keys: "a-example" (${csv}:2, ${csv}:3, ${csv}:4); "b-example" (${csv}:5, ${csv}:6).`) as unknown,
      },
    ]);
  });

  it('validate refuses an empty input unless the definition says empty is fine', async () => {
    const file = definition('name,domain\n');
    await expect(main(['pipelines', 'validate', file])).resolves.toBe(1);
    expect(err()).toContain('companies.csv: the input has no items, so a run would do nothing; add rows, or set input.allow_empty: true');
    cli.clearOut();
    const allowed = definition('name,domain\n');
    writeFileSync(allowed, readFileSync(allowed, 'utf8').replace('  key:', '  allow_empty: true\n  key:'));
    await expect(main(['pipelines', 'validate', allowed])).resolves.toBe(0);
    expect(out()).toBe(`${allowed}: ok (scan, 0 items)\n`);
  });

  it('the dry run prints its errors first and no figures when the input cannot run', async () => {
    const file = definition('name,domain\nA,a.example\nB,a.example\nC,a.example\n');
    await expect(main(['run', file, '--dry-run'])).resolves.toBe(1);
    const printed = out();
    expect(printed.split('\n').slice(0, 2)).toEqual(['pipeline scan: dry run, nothing was sent or spent', 'error: 1 problem:']);
    expect(printed).toContain('duplicate item keys: "a-example"');
    expect(printed).toContain('companies.csv:4)');
    expect(printed).not.toMatch(/items: \d|USD/);
    expect(printed.trimEnd().split('\n').at(-1)).toBe('no estimate until these are fixed: a run of this input would not start');
  });

  it('the dry run refuses an empty input the same way', async () => {
    const file = definition('name,domain\n');
    await expect(main(['run', file, '--dry-run'])).resolves.toBe(1);
    expect(out()).toContain('the input has no items');
    expect(out()).not.toContain('0.0000 USD');
  });

  it('the run itself refuses an empty input before anything is spent (the key check activity says why)', async () => {
    const file = definition('name,domain\n');
    const loaded = await loadPipelineDefinition(file);
    const { checkPipelineKeys } = pipelineKeyActivities();
    const run = { definition: loaded.definition, source: itemSource(loaded), params: {}, runKey: 'r1', runDate: '2026-11-25' };
    await expect(checkPipelineKeys(run)).resolves.toMatchObject({
      items: 0,
      problem: expect.stringContaining('the input has no items, so nothing was started') as unknown,
    });
    const allowed = { ...run, definition: { ...loaded.definition, input: { ...loaded.definition.input!, allow_empty: true } } };
    await expect(checkPipelineKeys(allowed)).resolves.toEqual({ items: 0, duplicates: [], repeats: 0 });
  });
});
