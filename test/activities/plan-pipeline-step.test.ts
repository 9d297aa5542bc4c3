import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalArtifactStore } from '../../src/activities';
import type { ResearchClient } from '../../src/api';
import { planPipelineStep, recordPipelineStep } from '../../src/activities/pipeline-steps';
import type { PipelineStepRecord, PlannedItem } from '../../src/domain/pipeline-types';
import { itemSource, loadPipelineDefinition, resolveParameters } from '../../src/pipelines';
import { sequenceSteps } from '../../src/pipelines/step-kind';
import { stepPlanInput } from '../../src/workflows/pipeline-step-outcomes';

const EXAMPLE = path.resolve(__dirname, '../../pipelines/company-enrichment.yaml');
/** Answer, Search and DeepResearch steps plan without the service (only a service workflow's preview calls it). */
const noService = {} as ResearchClient;

describe('planPipelineStep input', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-plan-step-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('carries the step alone, not the whole definition, and plans the same request as the older whole-definition input', async () => {
    const loaded = await loadPipelineDefinition(EXAMPLE);
    const { definition } = loaded;
    const store = new LocalArtifactStore(dir);
    const prefix = 'pipelines/company-enrichment/r1';
    const ref = {
      definition,
      source: itemSource(loaded),
      params: resolveParameters(definition.parameters, {}, { textValues: true }),
      runKey: 'r1',
      runDate: '2026-11-25',
      prefix,
    };
    const value = { company: 'Northwind Robotics', domain: 'northwind-robotics.example', segment: 'warehouse robotics', tier: 'A', country: 'US' };
    const item: PlannedItem = { key: 'northwind-robotics-example', index: 0, where: 'row 2', reserveUsd: 0.4, stepwise: { value, reserves: [0.2, 0.1, 0.1] } };
    const profileResult = `${prefix}/results/northwind-robotics-example/profile.json`;
    await store.put(profileResult, JSON.stringify({ output: { hq_city: 'Seattle', headcount: 420 }, costUsd: 0.02 }), 'application/json');
    const profile: PipelineStepRecord = {
      id: 'profile',
      kind: 'answer',
      status: 'completed',
      costUsd: 0.02,
      result: { ...(await store.stat(profileResult))!, contentType: 'application/json' },
      finishedAt: 1,
    };
    const news: PipelineStepRecord = { id: 'news', kind: 'search', status: 'completed', costUsd: 0.01, finishedAt: 2 };
    await recordPipelineStep(store, { prefix, itemKey: item.key, record: profile });

    const brief = sequenceSteps(definition)[2]!;
    const input = stepPlanInput(ref, item, 2, brief, [profile, news]);
    // What the workflow sent before: the run's whole reference (definition and source) with the item.
    const older = { ...ref, item: input.item, step: 2, earlier: [profile, news] };
    expect(input).not.toHaveProperty('definition');
    expect(input).not.toHaveProperty('source');
    expect(JSON.stringify(input)).not.toContain(definition.steps![0]!.answer!.query);
    // Its size follows the step and the earlier records, whatever else the definition holds.
    const longer = { ...ref, definition: { ...definition, description: 'x'.repeat(10_000) } };
    expect(JSON.stringify(stepPlanInput(longer, item, 2, brief, [profile, news]))).toBe(JSON.stringify(input));
    expect(Buffer.byteLength(JSON.stringify(input))).toBeLessThan(Buffer.byteLength(JSON.stringify(older)));

    const planned = await planPipelineStep({ api: noService, store }, input);
    expect(planned).toMatchObject({
      kind: 'run',
      request: { kind: 'deepresearch', request: { query: expect.stringContaining('headquartered in Seattle with about 420') } },
    });
    expect(await planPipelineStep({ api: noService, store }, older)).toEqual(planned);
  });
});
