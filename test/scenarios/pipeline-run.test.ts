import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pipelineRunStateQuery } from '../../src/workflows/definitions';
import type { PipelineRunResult, PipelineRunState } from '../../src/domain/pipeline-types';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { companies, pipelineInput } from './pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

const text = async (uri: string): Promise<string> => readFile(fileURLToPath(uri), 'utf8');

describeScenarios('pipelineRunWorkflow', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('runs every item as a research task within a window of 2 and writes JSONL, CSV and Markdown', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: profiles
input:
  items:
${companies(5)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }} ({{ item.domain }})"
    mode: fast
    output_formats:
      - type: object
        properties:
          company: { type: string }
          products: { type: array, items: { type: string } }
        required: [company]
concurrency: 2
start_rate_per_second: 50
budget_usd: 5
outputs:
  - format: jsonl
  - format: csv
    columns:
      name: "{{ item.name }}"
      profile: "{{ result.output }}"
  - format: markdown
`,
      world,
      { runKey: 'r1' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/profiles/r1', args: [input] });
    let most = 0;
    const seen: PipelineRunState[] = [];
    await env.waitUntil(
      async () => {
        const state = await handle.query(pipelineRunStateQuery);
        seen.push(state);
        most = Math.max(most, state.running.length);
        return state.phase === 'completed';
      },
      { timeoutMs: 3_600_000, description: 'the run to complete' },
    );
    const result = await handle.result();
    expect(most).toBe(2);
    expect(result.counts).toMatchObject({ read: 5, completed: 5, failed: 0 });
    expect(result.ledger.spentUsd).toBeCloseTo(0.5, 6);
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(5);
    const [jsonl, csv, markdown] = result.outputs.files;
    expect(result.outputs.files.map((file) => file.contentType)).toEqual(['application/x-ndjson', 'text/csv', 'text/markdown; charset=utf-8']);
    const lines = (await text(jsonl!.uri))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; status: string; output?: { company?: string } });
    expect(lines.map((line) => line.key)).toEqual(['company-1-example', 'company-2-example', 'company-3-example', 'company-4-example', 'company-5-example']);
    expect(lines.every((line) => line.status === 'completed' && typeof line.output?.company === 'string')).toBe(true);
    const rows = (await text(csv!.uri)).trim().split('\n');
    expect(rows[0]).toBe('name,profile.company,profile.products,cost_usd,sources');
    expect(rows).toHaveLength(6);
    expect(rows[1]).toMatch(/,0\.1,\d+$/);
    const digest = await text(markdown!.uri);
    expect(digest).toContain('**5 items**: 5 completed');
    expect(digest).toMatch(/### 1\. company-1-example\n\n\*completed\* · 0\.1000 USD\n\n- \*\*name\*\*: Company 1\n\n- \*\*profile\.company\*\*: /);
    expect(digest).not.toMatch(/[^\\]\]\((?!<https?:)/);
    expect(await handle.searchAttributes()).toMatchObject({ ResearchPipeline: 'profiles', ResearchStatus: 'completed' });
    expect(seen.some((state) => state.etaMs !== undefined)).toBe(true);
    await recordHistory(handle, 'pipeline-run');
  });

  it('runs Contents items once each, charged once at the service, and writes one line per item', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: pages
input:
  items: [alpha, beta, gamma]
  key: "{{ item }}"
step:
  contents:
    urls: ["https://{{ item }}.example/about"]
    response_length: short
concurrency: 2
start_rate_per_second: 50
budget_usd: 1
`,
      world,
      { runKey: 'extract' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/pages/extract', args: [input] });
    const result = await handle.result();
    expect(result.counts).toMatchObject({ read: 3, completed: 3, failed: 0 });
    const stats = world.emulator.stats.snapshot();
    expect(Object.values(stats.requests.contents ?? {}).reduce((sum, count) => sum + count, 0)).toBe(3);
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
    const keys = (await text(result.outputs.files[0]!.uri))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { key: string }).key);
    expect(keys.sort()).toEqual(['alpha', 'beta', 'gamma']);
    await recordHistory(handle, 'pipeline-contents');
  });
});
