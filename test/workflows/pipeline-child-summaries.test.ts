import { batchDetails, batchSummary, itemDetails, itemSummary, synthesisSummary } from '../../src/workflows/pipeline-child-summaries';
import type { PlannedItem } from '../../src/domain/pipeline-types';

const run = { pipeline: 'competitors', runKey: '2026-11-25', workflowId: 'pipeline-run/competitors/2026-11-25' };
const item: PlannedItem = { key: 'acme', index: 0, where: 'companies.csv line 2', reserveUsd: 0.5 };

describe("what the Temporal UI shows of a pipeline run's children", () => {
  it("lists an item's task under its pipeline, run, key and attempt", () => {
    expect(itemSummary(run, item, 2)).toBe('competitors · run 2026-11-25 · item acme (attempt 2)');
  });

  it("details where an item comes from, what it runs and what it reserves, linking the run's workflow", () => {
    expect(itemDetails(run, item, { kind: 'deepresearch', request: { query: 'q', mode: 'fast' } as never })).toBe(
      'pipeline **competitors**, run `2026-11-25` (workflow `pipeline-run/competitors/2026-11-25`)\n\nitem `acme` (companies.csv line 2) · DeepResearch fast · 0.5 USD reserved',
    );
    expect(itemDetails(run, item, { kind: 'deepresearch', request: { query: 'q' } })).toContain('· DeepResearch standard ·');
    expect(itemDetails(run, item, { kind: 'workflow', request: { query: 'q' }, preview: { slug: 'due-diligence', params: {} } })).toContain(
      '· service workflow due-diligence ·',
    );
  });

  it('lists and details a service batch by round, tasks, mode and reservation', () => {
    expect(batchSummary(run, 1, 250)).toBe('competitors · run 2026-11-25 · service batch 1 (250 tasks)');
    expect(batchDetails(run, 2, { tasks: 250, mode: 'fast', reservedUsd: 25 })).toBe(
      'pipeline **competitors**, run `2026-11-25` (workflow `pipeline-run/competitors/2026-11-25`)\n\nservice batch 2: 250 tasks, mode fast, 25 USD reserved',
    );
    expect(batchDetails(run, 2, { tasks: 3, reservedUsd: 1 })).toMatch(/service batch 2: 3 tasks, 1 USD reserved$/);
  });

  it('lists the synthesis under its run', () => {
    expect(synthesisSummary(run)).toBe('competitors · run 2026-11-25 · synthesis');
  });
});
