import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { itemRecordKey, itemResultKey } from '../../src/activities/pipeline-items';
import { writePipelineOutputs } from '../../src/activities/pipeline-outputs';
import { LocalArtifactStore } from '../../src/activities/store';
import type { PipelineItemRecord } from '../../src/domain/pipeline-types';
import { itemSource, parsePipelineDefinition } from '../../src/pipelines';

/** The fan-in over records in a real local store: what a person gets from an Answer run. */
describe('the outputs of an Answer run', () => {
  let dir: string;
  let store: LocalArtifactStore;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-outputs-'));
    store = new LocalArtifactStore(dir);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const prefix = 'pipelines/hq/r1';
  const definitionOf = (outputs: string) =>
    parsePipelineDefinition(
      `name: hq
budget_usd: 1
input:
  items: [{ name: Acme, domain: acme.example }, { name: Beta, domain: beta.example }]
  key: "{{ item.domain | slug }}"
step:
  answer:
    query: "Where is {{ item.name }} based?"
${outputs}`,
      path.join(dir, 'hq.yaml'),
    );

  async function record(key: string, index: number, fields: Partial<PipelineItemRecord>, result?: object): Promise<void> {
    const stored = result ? await store.put(itemResultKey(prefix, key), JSON.stringify({ key, kind: 'answer', ...result }), 'application/json') : undefined;
    const item: PipelineItemRecord = {
      key,
      index,
      status: 'completed',
      attempts: 1,
      costUsd: 0,
      finishedAt: 0,
      ...(stored ? { result: stored } : {}),
      ...fields,
    };
    await store.put(itemRecordKey(prefix, key), JSON.stringify(item), 'application/json');
  }

  async function run(outputs: string, synthesis?: string) {
    const loaded = definitionOf(outputs);
    await record(
      'acme-example',
      0,
      { costUsd: 0.012 },
      {
        output: 'Acme is based in **Oslo**.',
        sources: [
          { title: 'Acme about', url: 'https://acme.example/about' },
          { title: 'Registry', url: 'https://registry.example/acme' },
        ],
        costUsd: 0.012,
      },
    );
    await record('beta-example', 1, { status: 'failed', error: 'the service refused the request (422)' });
    const synthesisRef = synthesis ? await store.put(`${prefix}/synthesis/report.md`, synthesis, 'text/markdown') : undefined;
    const outputsWritten = await writePipelineOutputs(store, {
      definition: loaded.definition,
      source: itemSource(loaded),
      params: {},
      runKey: 'r1',
      runDate: '2026-11-25',
      prefix,
      ledger: { spentUsd: 0.012, budgetUsd: 1 },
      completed: true,
      ...(synthesisRef ? { synthesis: synthesisRef } : {}),
    });
    const text = async (name: string) => readFile(fileURLToPath(outputsWritten.files.find((file) => file.key.endsWith(name))!.uri), 'utf8');
    return { outputs: outputsWritten, text };
  }

  it('ends the CSV with each item cost and sources count, formulas still escaped', async () => {
    const { text } = await run(`outputs:
  - format: csv
    columns:
      company: "{{ item.name }}"
      answer: "{{ result.output }}"
      first: "=1+{{ item.name }}"
`);
    expect((await text('results.csv')).trim().split('\n')).toEqual([
      'company,answer,first,cost_usd,sources',
      "Acme,Acme is based in **Oslo**.,'=1+Acme,0.012,2",
      "Beta,,'=1+Beta,0,0",
    ]);
  });

  it('writes a digest with the answer, its sources and cost per item, the failure said, totals first', async () => {
    const { text } = await run(
      `outputs:
  - format: markdown
`,
      '# Synthesis\n\nBoth firms are Nordic.\n\n## Detail\n\nMore.\n',
    );
    const digest = await text('results.md');
    expect(digest).toContain('**2 items**: 1 completed, 1 failed, 0 cancelled, 0 not started.');
    expect(digest).toContain('**Cost**: 0.0120 of 1.00 USD spent, 0.0120 USD per completed item on average. **Sources cited**: 2.');
    expect(digest).toContain('## Synthesis\n\n> Both firms are Nordic.\n>\n> ### Detail\n>\n> More.');
    expect(digest).toContain(
      '### 1. acme-example\n\n*completed* · 0.0120 USD\n\n- **name**: Acme\n- **domain**: acme.example\n\n> Acme is based in **Oslo**.\n\nSources (2): [Acme about](<https://acme.example/about>) · [Registry](<https://registry.example/acme>)',
    );
    expect(digest).toContain(
      '### 2. beta-example\n\n*failed* · 0.0000 USD\n\n- **name**: Beta\n- **domain**: beta.example\n\n**Error**: the service refused the request (422)',
    );
    expect(digest).not.toContain(dir);
  });

  it('warns, naming the column, when a column reads an item field that no item has', async () => {
    const { outputs, text } = await run(`outputs:
  - format: csv
    columns:
      company: "{{ item.name }}"
      site: "{{ item.website }}"
  - format: markdown
`);
    const warning = 'results.csv: column "site" ({{ item.website }}) is empty for all 2 items: the field it names is in no item';
    expect(outputs.warnings).toEqual([warning]);
    expect(await text('results.md')).toContain(`> **Warning**: results.csv: column "site" ({{ item.website }}) is empty for all 2 items`);
  });
});
