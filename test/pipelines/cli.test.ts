import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { main } from '../../src/cli';
import { captureCli } from '../support/capture-io';

const EXAMPLES = path.relative(process.cwd(), path.join(__dirname, '../../pipelines'));

describe('rp pipelines and rp run', () => {
  const cli = captureCli('rp-cli-');
  const { out, err } = cli;

  it('validates every shipped example and exits 0', async () => {
    const files = ['competitor-scan', 'clinical-trials-watch', 'due-diligence'].map((name) => path.join(EXAMPLES, `${name}.yaml`));
    await expect(main(['pipelines', 'validate', ...files])).resolves.toBe(0);
    const items = { 'competitor-scan': 5, 'clinical-trials-watch': 4, 'due-diligence': 1 };
    expect(out()).toBe(
      Object.entries(items)
        .map(([name, count], index) => `${files[index]}: ok (${name}, ${count} item${count === 1 ? '' : 's'})\n`)
        .join(''),
    );
  });

  it('exits 1 for an invalid definition, printing file:line:column path: rule', async () => {
    const bad = path.join(cli.folder, 'bad.yaml');
    writeFileSync(bad, 'name: bad\nbudget_usd: 1\nstep:\n  answer:\n    query: q\n    search_type: everything\n');
    await expect(main(['pipelines', 'validate', path.join(EXAMPLES, 'quick-answers.yaml'), bad])).resolves.toBe(1);
    expect(err()).toBe(`${bad}:6:18 step.answer.search_type: must be one of all|web|proprietary|news\n`);
  });

  it('needs at least one file to validate (exit 2)', async () => {
    await expect(main(['pipelines', 'validate'])).resolves.toBe(2);
    expect(err()).toContain("missing required argument 'file'");
  });

  it('prints the JSON Schema generated from the zod schema', async () => {
    await expect(main(['pipelines', 'schema'])).resolves.toBe(0);
    const schema = JSON.parse(out()) as Record<string, unknown>;
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(schema);
    expect(validate({ name: 'x', budget_usd: 1, step: { search: { query: 'q' } } })).toBe(true);
    expect(validate({ name: 'x', budget_usd: 1, step: { search: { query: 'q', colour: 'red' } } })).toBe(false);
  });

  it('dry-runs a pipeline: items, calls and estimated cost, nothing spent', async () => {
    await expect(main(['run', path.join(EXAMPLES, 'earnings-batch.yaml'), '--dry-run', '--set', 'quarter=Q4 2026', '--run-key', 'q4'])).resolves.toBe(0);
    expect(out()).toContain('pipeline earnings-batch: dry run, nothing was sent or spent');
    expect(out()).toContain('parameters: quarter=Q4 2026');
    expect(out()).toContain('first service batch workflow id: research-batch/earnings-batch/q4/<run-id>-1');
    expect(out()).toContain('  items: 6\n');
    expect(out()).toContain('POST /v1/deepresearch/batches/{id}/tasks: 1');
    expect(out()).toContain('estimated cost: 0.6000 USD; budget 1.00 USD');
  });

  it('previews service workflows on the embedded emulator when no service is configured', async () => {
    await expect(main(['run', path.join(EXAMPLES, 'company-profiles.yaml'), '--dry-run'])).resolves.toBe(0);
    expect(err()).toContain('previewing workflows on the embedded emulator');
    expect(out()).toContain('workflow previews: 2 (free)');
  });

  it('refuses a --set for an unknown or mistyped parameter as bad usage (exit 2), naming it', async () => {
    await expect(
      main([
        'run',
        path.join(EXAMPLES, 'due-diligence.yaml'),
        '--dry-run',
        '--set',
        'company=Acme',
        '--set',
        'domain=acme.example',
        '--set',
        'deal_size_usd=lots',
        '--set',
        'colour=red',
      ]),
    ).resolves.toBe(2);
    expect(err()).toContain('unknown parameter "colour" (parameters: company, domain, deal_size_usd)');
    expect(err()).toContain('parameter deal_size_usd: must be a number (got "lots")');
  });

  it('exits 1 when items cannot run, naming the item and the variable', async () => {
    const file = path.join(cli.folder, 'p.yaml');
    writeFileSync(
      file,
      'name: p\nbudget_usd: 5\ninput:\n  items: [{ company: Acme }]\n  key: "{{ item.company | slug }}"\nstep:\n  deepresearch: { query: "About {{ item.company }} at {{ item.website }}", mode: fast }\n',
    );
    await expect(main(['run', file, '--dry-run'])).resolves.toBe(1);
    expect(out()).toContain('item "acme" (item 1): step.deepresearch: {{ item.website }}: missing variable item.website (item has: company)');
  });

  it('refuses a bad run key or parameter before contacting Temporal (exit 2)', async () => {
    await expect(main(['run', path.join(EXAMPLES, 'quick-answers.yaml'), '--run-key', 'week 48/x'])).resolves.toBe(2);
    expect(err()).toContain('rp: --run-key: run key "week 48/x" must be 1 to 128 letters, digits and . _ : @ + ~ -, starting with a letter or digit');
    await expect(main(['run', path.join(EXAMPLES, 'quick-answers.yaml'), '--set', 'colour=red'])).resolves.toBe(2);
    expect(err()).toContain('rp: unknown parameter "colour" (parameters: none)');
  });
});
