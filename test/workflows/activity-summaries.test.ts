import { InMemoryWebhookSecretStore, LocalArtifactStore, createActivities } from '../../src/activities';
import { ResearchClient } from '../../src/api';
import { activitySummary, SUMMARISED_ACTIVITIES } from '../../src/workflows/activity-summaries';
import { HANDLER_DESCRIPTIONS, described } from '../../src/workflows/definitions';

describe('activity summaries', () => {
  it('every activity the worker registers has a summary', () => {
    const activities = createActivities({
      api: new ResearchClient({ baseUrl: 'https://research.test/v1', apiKey: 'rk_unused_key' }),
      store: new LocalArtifactStore('/tmp/unused'),
      secrets: new InMemoryWebhookSecretStore(),
    });
    expect([...SUMMARISED_ACTIVITIES].sort()).toEqual(Object.keys(activities).sort());
  });

  it('names what each call works on, on one short line', () => {
    expect(activitySummary('getResearchTask', { deepresearchId: 'dr_42' })).toBe('status of dr_42');
    expect(activitySummary('createResearchTask', { request: { query: 'Grid storage\n costs   compared', mode: 'fast' } })).toBe(
      'create a DeepResearch task (fast): "Grid storage costs compared"',
    );
    expect(activitySummary('addResearchBatchTasks', { batchId: 'batch_1', tasks: [], tasksRef: { key: 'k', offset: 100, limit: 37 } })).toBe(
      'add 37 tasks to batch_1',
    );
    expect(activitySummary('runPipelineItem', { key: 'acme', request: { kind: 'answer' } })).toBe('answer for item acme');
    expect(
      activitySummary('runPipelineItems', {
        items: [
          { key: 'acme', request: { kind: 'search' } },
          { key: 'globex', request: { kind: 'search' } },
          { key: 'initech', request: { kind: 'search' } },
        ],
      }),
    ).toBe('search for 3 items (acme … initech)');
    expect(activitySummary('preparePipelineBatch', { round: 1, budgetLeftUsd: 2.5 })).toBe('prepare service batch 2 within 2.5 USD');
    const long = activitySummary('createResearchTask', { request: { query: 'x'.repeat(500) } })!;
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long).not.toContain('\n');
  });

  it('an unknown activity or an odd input gets no summary rather than an error', () => {
    expect(activitySummary('somethingElse', {})).toBeUndefined();
    expect(activitySummary('getResearchTask', null)).toBe('status of the task');
    expect(activitySummary('collectResearchBatchPage', 'nonsense')).toBe("collect page 1 of the batch's results");
  });
});

describe('handler descriptions', () => {
  it('describes every signal, query and update the workflows define', async () => {
    const modules = [await import('../../src/workflows/definitions'), await import('../../src/workflows/pipeline-definitions')];
    const names = modules
      .flatMap((module) => Object.values(module))
      .filter(
        (value): value is { name: string; type: string } =>
          typeof value === 'object' && value !== null && 'type' in value && ['signal', 'query', 'update'].includes(String((value as { type: unknown }).type)),
      )
      .map((definition) => definition.name);
    expect(names.length).toBeGreaterThanOrEqual(13);
    for (const name of names) expect(described({ name }).description).toBe(HANDLER_DESCRIPTIONS[name]);
    expect(Object.keys(HANDLER_DESCRIPTIONS).sort()).toEqual([...new Set(names)].sort());
  });
});
