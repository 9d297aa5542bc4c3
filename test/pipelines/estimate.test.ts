import * as path from 'node:path';
import { ResearchClient } from '../../src/api';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { estimateItem, estimateRun, loadPipelineDefinition, parsePipelineDefinition, sumEstimates, ParameterError } from '../../src/pipelines';
import { dryRunPipeline } from '../../src/runs/dry-run';

const EXAMPLES = path.join(__dirname, '../../pipelines');
const now = new Date('2026-11-23T12:00:00Z');

describe('cost estimates from the spec prices', () => {
  it.each([
    ['fast', 0.1],
    ['standard', 0.5],
    ['heavy', 2.5],
    ['max', 15],
  ] as const)('a %s DeepResearch task costs %d USD', (mode, usd) => {
    expect(estimateItem({ kind: 'deepresearch', request: { query: 'q', mode } })).toEqual({
      usd,
      maxUsd: usd,
      calls: { 'POST /v1/deepresearch/tasks': 1 },
      notes: [],
    });
  });

  it('prices a task without a mode at standard and notes tool surcharges', () => {
    expect(estimateItem({ kind: 'deepresearch', request: { query: 'q', tools: { charts: true } } })).toMatchObject({
      usd: 0.5,
      notes: [expect.stringContaining('charts')],
    });
  });

  it('prices an answer at 0.10 USD, capped by data_max_price (default 1 USD)', () => {
    expect(estimateItem({ kind: 'answer', request: { query: 'q' } })).toMatchObject({ usd: 0.1, maxUsd: 1.1, calls: { 'POST /v1/answer': 1 } });
    expect(estimateItem({ kind: 'answer', request: { query: 'q', data_max_price: 0.2 } })).toMatchObject({ usd: 0.1, maxUsd: 0.3 });
  });

  it('prices contents per URL, doubled with an AI summary', () => {
    expect(estimateItem({ kind: 'contents', request: { urls: ['https://a.example', 'https://b.example'] } })).toMatchObject({ usd: 0.002 });
    expect(estimateItem({ kind: 'contents', request: { urls: ['https://a.example', 'https://b.example'], summary: true } })).toMatchObject({ usd: 0.004 });
  });

  it('bounds a search only when it caps price and length', () => {
    expect(estimateItem({ kind: 'search', request: { query: 'q', max_num_results: 10, max_price: 2, response_length: 1000 } })).toMatchObject({
      usd: 0,
      maxUsd: 5,
    }); // 10 results x 250 tokens x 2 USD per thousand
    expect(estimateItem({ kind: 'search', request: { query: 'q' } })).toMatchObject({ usd: 0, maxUsd: 0, notes: [expect.stringContaining('max_price')] });
  });

  it('prices a workflow run by its preview, or by the mode the step forces', () => {
    const request = { kind: 'workflow' as const, request: { workflow_id: 'w' }, preview: { slug: 'w', params: {} } };
    expect(estimateItem(request, { estimatedCredits: 2.5, mode: 'heavy' }).usd).toBe(2.5);
    expect(estimateItem(request, { estimatedCredits: null, mode: 'fast' }).usd).toBe(0.1);
    expect(estimateItem({ ...request, request: { workflow_id: 'w', mode: 'heavy' } }, { estimatedCredits: 0.5 }).usd).toBe(2.5);
  });

  it('adds a batch run its create request and one add-tasks request per 100 tasks', () => {
    const { definition } = parsePipelineDefinition(
      'name: b\nbudget_usd: 100\ninput: { items: [a], key: "{{ item }}" }\nstep: { batch: { query: "{{ item }}", mode: fast } }\n',
      'b.yaml',
    );
    const items = sumEstimates(Array.from({ length: 250 }, () => estimateItem({ kind: 'batch', task: { id: 'x', query: 'q' }, mode: 'fast' })));
    expect(estimateRun(definition, items, 250)).toEqual({
      usd: 25,
      maxUsd: 25,
      notes: [],
      calls: { 'POST /v1/deepresearch/batches': 1, 'POST /v1/deepresearch/batches/{id}/tasks': 3 },
    });
  });
});

describe('dry run', () => {
  it('checks every item of the competitor scan and estimates 5 fast tasks plus a standard synthesis', async () => {
    const report = await dryRunPipeline(await loadPipelineDefinition(path.join(EXAMPLES, 'competitor-scan.yaml')), { now, runKey: '2026-w48' });
    expect(report).toMatchObject({
      runWorkflowId: 'pipeline-run/competitor-scan/2026-w48',
      items: 5,
      errorCount: 0,
      overBudget: false,
      estimate: { usd: 1, calls: { 'POST /v1/deepresearch/tasks': 6 } },
      nextRuns: ['2026-11-30T07:00:00.000Z', '2026-12-07T07:00:00.000Z', '2026-12-14T07:00:00.000Z'],
    });
    expect(report.firstItems[0]).toEqual({
      key: 'northwind-robotics-example',
      workflowId: 'research-task/competitor-scan/2026-w48/northwind-robotics-example',
    });
  });

  it('needs the due-diligence parameters an app event gives', async () => {
    const loaded = await loadPipelineDefinition(path.join(EXAMPLES, 'due-diligence.yaml'));
    await expect(dryRunPipeline(loaded, { now })).rejects.toThrow(ParameterError);
    const report = await dryRunPipeline(loaded, { now, overrides: { company: 'Acme Corp', domain: 'acme.example' } });
    expect(report).toMatchObject({ items: 1, errorCount: 0, estimate: { usd: 2.5 } });
  });

  it('reports item problems and an estimate over budget', async () => {
    const loaded = parsePipelineDefinition(
      `name: scan
budget_usd: 0.5
input:
  items: [{ company: Acme }, { company: Globex, site: "https://globex.example" }, { company: Initech, site: "https://initech.example" }]
  key: "{{ item.company | slug }}"
step:
  deepresearch: { query: "Research {{ item.company }} at {{ item.site }}", mode: standard }
`,
      'inline.yaml',
    );
    const report = await dryRunPipeline(loaded, { now });
    expect(report).toMatchObject({ items: 3, errorCount: 1, overBudget: true, estimate: { usd: 1 } });
    expect(report.errors).toEqual(['item "acme" (item 1): step.deepresearch: {{ item.site }}: missing variable item.site (item has: company)']);
  });

  describe('against the emulator', () => {
    let emulator: RunningEmulator;
    let api: ResearchClient;
    beforeAll(async () => {
      emulator = await startEmulator({ seed: 1 });
      api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
    });
    afterAll(async () => {
      await api.close();
      await emulator.close();
    });

    it('previews every distinct service workflow run for free and prices it', async () => {
      const before = (await (await fetch(`${emulator.origin}/_emulator/accounts/${emulator.defaultApiKey}`)).json()) as { creditsUsd: number };
      const report = await dryRunPipeline(await loadPipelineDefinition(path.join(EXAMPLES, 'company-profiles.yaml')), {
        now,
        previewWorkflow: (slug, body) => api.previewWorkflow(slug, body),
      });
      expect(report).toMatchObject({
        items: 2,
        previews: 2,
        errorCount: 0,
        estimate: { calls: { 'POST /v1/deepresearch/tasks': 2, 'POST /v1/workflows/{slug}/preview': 2 } },
      });
      const after = (await (await fetch(`${emulator.origin}/_emulator/accounts/${emulator.defaultApiKey}`)).json()) as { creditsUsd: number };
      expect(after.creditsUsd).toBe(before.creditsUsd);
    });

    it('reports a preview the service refuses as an item problem', async () => {
      const loaded = parsePipelineDefinition(
        'name: w\nbudget_usd: 5\ninput: { items: [a], key: "{{ item }}" }\nstep: { workflow: { workflow_id: no-such-workflow, params: { x: "{{ item }}" } } }\n',
        'w.yaml',
      );
      const report = await dryRunPipeline(loaded, { now, previewWorkflow: (slug, body) => api.previewWorkflow(slug, body) });
      expect(report.errorCount).toBe(1);
      expect(report.errors[0]).toMatch(/^item "a" \(item 1\): workflow no-such-workflow preview refused: /);
    });
  });
});
