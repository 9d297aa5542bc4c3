import path from 'node:path';
import { compareRuns } from '../../src/pipelines/change-report';
import { conditionSchema, describeCondition, evaluateCondition } from '../../src/pipelines/condition';
import { estimateStep } from '../../src/pipelines/estimate';
import { defaultStepColumns, stepsResultScope } from '../../src/pipelines/fan-in-steps';
import { loadPipelineDefinition, parsePipelineDefinition, PipelineDefinitionError } from '../../src/pipelines/load';
import { dryRunPipeline } from '../../src/runs/dry-run';
import { dryRunPassed, formatDryRunReport } from '../../src/runs/dry-run-report';
import { renderStepRequest } from '../../src/pipelines/render-item';
import { sequenceSteps } from '../../src/pipelines/step-kind';
import { keptByWhere, planSteps, stepDecision, stepReserves, stepsScope } from '../../src/pipelines/step-plan';
import { DryRunStepTally } from '../../src/runs/dry-run-steps';

const context = { params: {}, pipeline: { name: 'enrich' }, run: { key: 'r', date: '2026-11-25' } };

const THREE_STEPS = `
name: enrich
input:
  items:
    - { name: Acme, tier: A }
    - { name: Beta, tier: B }
  key: "{{ item.name | slug }}"
  where: { field: item.tier, not_equals: X }
steps:
  - id: profile
    answer:
      query: Headcount of {{ item.name }}
      data_max_price: 0.2
      structured_output: { type: object, properties: { headcount: { type: integer }, hq_city: { type: string } } }
  - id: news
    search: { query: "{{ item.name }} news", max_price: 1, max_num_results: 3, response_length: 800 }
  - id: brief
    when: { all: [ { field: item.tier, equals: A }, { field: steps.profile.result.output.headcount, gte: 100 } ] }
    deepresearch: { query: "Brief on {{ item.name }} in {{ steps.profile.result.output.hq_city }}", mode: fast }
budget_usd: 5
`;

const load = (yaml: string) => parsePipelineDefinition(yaml, '/tmp/enrich.yaml').definition;
const issues = (yaml: string): string => {
  try {
    load(yaml);
  } catch (error) {
    if (error instanceof PipelineDefinitionError) return error.message;
    throw error;
  }
  throw new Error('the definition was accepted');
};

describe('conditions', () => {
  it('compare CSV text as numbers and values, and combine with all, any and not', () => {
    const scope = { item: { tier: 'A', headcount: '120', tags: ['b2b', 'eu'], domain: '' } };
    expect(evaluateCondition({ field: 'item.tier', equals: 'A' }, scope)).toBe(true);
    expect(evaluateCondition({ field: 'item.headcount', gt: 100 }, scope)).toBe(true);
    expect(evaluateCondition({ field: 'item.headcount', equals: 120 }, scope)).toBe(true);
    expect(evaluateCondition({ field: 'item.tier', in: ['B', 'C'] }, scope)).toBe(false);
    expect(evaluateCondition({ field: 'item.tags', contains: 'eu' }, scope)).toBe(true);
    expect(evaluateCondition({ field: 'item.domain', exists: true }, scope)).toBe(false);
    expect(evaluateCondition({ field: 'item.missing', lt: 5 }, scope)).toBe(false);
    expect(evaluateCondition({ not: { field: 'item.tier', equals: 'A' } }, scope)).toBe(false);
    expect(
      evaluateCondition(
        {
          any: [
            { field: 'item.tier', equals: 'B' },
            { field: 'item.headcount', lte: 120 },
          ],
        },
        scope,
      ),
    ).toBe(true);
  });

  it('say when the answer depends on values not known yet, and decide when one part settles it', () => {
    const unknown = { field: 'steps.profile.result.output.headcount', gte: 100 };
    const scope = { item: { tier: 'B' } };
    expect(evaluateCondition(unknown, scope, ['steps'])).toBeUndefined();
    expect(evaluateCondition({ all: [{ field: 'item.tier', equals: 'A' }, unknown] }, scope, ['steps'])).toBe(false);
    expect(evaluateCondition({ any: [{ field: 'item.tier', equals: 'B' }, unknown] }, scope, ['steps'])).toBe(true);
    expect(evaluateCondition({ not: unknown }, scope, ['steps'])).toBeUndefined();
  });

  it('refuse a comparison without exactly one operator, naming the rule', () => {
    expect(conditionSchema.safeParse({ field: 'item.tier' }).success).toBe(false);
    expect(conditionSchema.safeParse({ field: 'item.tier', equals: 'A', in: ['B'] }).success).toBe(false);
    expect(conditionSchema.safeParse({ field: 'item tier', equals: 'A' }).success).toBe(false);
    expect(describeCondition({ all: [{ field: 'item.tier', equals: 'A' }, { not: { field: 'item.x', exists: true } }] })).toBe(
      '(item.tier equals "A") and (not (item.x exists true))',
    );
  });
});

describe('steps: definitions', () => {
  it('load with each step kind, id and condition', () => {
    const definition = load(THREE_STEPS);
    expect(sequenceSteps(definition).map((step) => [step.id, step.kind, step.when !== undefined])).toEqual([
      ['profile', 'answer', false],
      ['news', 'search', false],
      ['brief', 'deepresearch', true],
    ]);
  });

  it('refuse a template or condition reading a later or unknown step, naming the field', () => {
    const later = THREE_STEPS.replace('Headcount of {{ item.name }}', 'Headcount of {{ steps.brief.result.output }}');
    expect(issues(later)).toContain('steps[0].answer.query');
    expect(issues(later)).toContain('steps.brief is not an earlier step (no step comes before this one)');
    const unknown = THREE_STEPS.replace('field: steps.profile.result.output.headcount', 'field: steps.profil.result.output.headcount');
    expect(issues(unknown)).toContain('steps[2].when.all[1].field');
    expect(issues(unknown)).toContain('steps.profil is not an earlier step (earlier: profile, news)');
    expect(issues(THREE_STEPS.replace('where: { field: item.tier', 'where: { field: steps.profile'))).toContain('input.where.field');
  });

  it('refuse duplicate ids, a batch step among steps, and step with steps', () => {
    expect(issues(THREE_STEPS.replace('id: news', 'id: profile'))).toContain('"profile" is already the id of step 1');
    expect(issues(THREE_STEPS.replace('  - id: news\n    search:', '  - id: news\n    batch: { query: x }\n    search:'))).toContain(
      'cannot be one of several steps',
    );
    expect(issues(THREE_STEPS.replace('steps:\n', 'step:\n  search: { query: x }\nsteps:\n'))).toContain('gives step and steps');
  });

  it('render a later step with the earlier results, and fail naming the missing one', () => {
    const definition = load(THREE_STEPS);
    const item = { index: 0, where: 'item 1', key: 'acme', value: { name: 'Acme', tier: 'A' } };
    const steps = stepsScope(new Map([['profile', { status: 'completed' as const, output: { headcount: 150, hq_city: 'Lyon' }, costUsd: 0.1 }]]));
    const request = renderStepRequest(definition, 2, item, context, steps);
    expect(request).toMatchObject({ kind: 'deepresearch', request: { query: 'Brief on Acme in Lyon', mode: 'fast' } });
    expect(() => renderStepRequest(definition, 2, item, context, {})).toThrow(/steps\.brief\.deepresearch.*steps\.profile/);
  });
});

describe('step planning', () => {
  const definition = load(THREE_STEPS);

  it('keeps rows by input.where', () => {
    expect(keptByWhere(definition, { tier: 'A' }, {})).toBe(true);
    expect(keptByWhere(definition, { tier: 'X' }, {})).toBe(false);
  });

  it('prices each step from its configuration and reserves nothing for a step the item rules out', () => {
    const forB = planSteps(definition, { name: 'Beta', tier: 'B' }, {});
    expect(forB.map((step) => [step.id, step.runs])).toEqual([
      ['profile', true],
      ['news', true],
      ['brief', false],
    ]);
    expect(stepReserves(forB)).toEqual({ reserves: [0.3, 0.6, 0], unbounded: false });
    const forA = planSteps(definition, { name: 'Acme', tier: 'A' }, {});
    expect(forA[2]!.runs).toBeUndefined();
    expect(stepReserves(forA).reserves).toEqual([0.3, 0.6, 0.1]);
    expect(estimateStep(sequenceSteps(definition)[2]!)).toMatchObject({ usd: 0.1, calls: { 'POST /v1/deepresearch/tasks': 1 } });
  });

  it('decides a step over the earlier results, saying why it is skipped', () => {
    const brief = sequenceSteps(definition)[2]!;
    const small = stepsScope(new Map([['profile', { status: 'completed' as const, output: { headcount: 20 }, costUsd: 0.1 }]]));
    const big = stepsScope(new Map([['profile', { status: 'completed' as const, output: { headcount: '400' }, costUsd: 0.1 }]]));
    expect(stepDecision(brief, { item: { tier: 'A' }, params: {}, steps: big })).toEqual({ run: true });
    expect(stepDecision(brief, { item: { tier: 'A' }, params: {}, steps: small })).toEqual({
      run: false,
      because: 'when: (item.tier equals "A") and (steps.profile.result.output.headcount gte 100) did not hold',
    });
  });

  it('tallies a dry run per step: sure, depending on results, and skipped', () => {
    const tally = new DryRunStepTally();
    tally.add(planSteps(definition, { tier: 'A' }, {}));
    tally.add(planSteps(definition, { tier: 'B' }, {}));
    const [profile, , brief] = tally.steps();
    expect(profile).toMatchObject({ runs: 2, maybe: 0, skipped: 0, estimate: { usd: 0.2, calls: { 'POST /v1/answer': 2 } } });
    expect(brief).toMatchObject({ runs: 0, maybe: 1, skipped: 1, maybeEstimate: { usd: 0.1, calls: { 'POST /v1/deepresearch/tasks': 1 } } });
    expect(tally.surelyUsd()).toBeCloseTo(0.2, 6);
    expect(tally.total().usd).toBeCloseTo(0.3, 6);
  });
});

describe('step outputs', () => {
  it('give each step a column group prefixed by its id, flattened by its schema', () => {
    expect(Object.keys(defaultStepColumns(load(THREE_STEPS)))).toEqual([
      'key',
      'status',
      'cost_usd',
      'profile.status',
      'profile.cost_usd',
      'profile.headcount',
      'profile.hq_city',
      'news.status',
      'news.cost_usd',
      'news.urls',
      'brief.status',
      'brief.cost_usd',
      'brief.report',
    ]);
    const scope = stepsResultScope([
      { id: 'news', kind: 'search', status: 'completed', costUsd: 0.2, output: [{ url: 'https://a.example' }, { url: 'https://b.example' }], files: [] },
      { id: 'brief', kind: 'deepresearch', status: 'skipped', costUsd: 0, files: [], skippedBecause: 'when: x' },
    ]);
    expect(scope).toMatchObject({
      news: { status: 'completed', urls: ['https://a.example', 'https://b.example'] },
      brief: { status: 'skipped', skipped_because: 'when: x' },
    });
    expect(scope.brief).not.toHaveProperty('result');
  });
});

describe('the company-enrichment example', () => {
  it('validates and dry-runs with calls and cost per step, the when: decided from the CSV, and the row input.where leaves out', async () => {
    const loaded = await loadPipelineDefinition(path.resolve(__dirname, '../../pipelines/company-enrichment.yaml'));
    const report = await dryRunPipeline(loaded, { now: new Date('2026-11-25T12:00:00Z') });
    expect(dryRunPassed(report)).toBe(true);
    expect(report).toMatchObject({ items: 5, filtered: 1, errorCount: 0 });
    expect(report.steps?.map((step) => [step.id, step.runs, step.maybe, step.skipped])).toEqual([
      ['profile', 5, 0, 0],
      ['news', 5, 0, 0],
      ['brief', 2, 0, 3],
    ]);
    expect(report.estimate.calls).toEqual({ 'POST /v1/answer': 5, 'POST /v1/search': 5, 'POST /v1/deepresearch/tasks': 2 });
    const text = formatDryRunReport(report);
    expect(text).toContain(
      '    brief (deepresearch) when item.tier equals "A":\n      runs for 2 items: POST /v1/deepresearch/tasks: 2; 0.2000 USD\n      skipped for 3 items',
    );
    expect(text).toContain('left out by input.where: 1 row');
  });
});

describe('the change report with steps', () => {
  it('compares step by step and field by field', () => {
    const before = new Map([
      ['acme', { status: 'completed', steps: { profile: { status: 'completed', output: { headcount: 120 } }, brief: { status: 'skipped' } } }],
    ]);
    const after = new Map([
      ['acme', { status: 'completed', steps: { profile: { status: 'completed', output: { headcount: 150 } }, brief: { status: 'completed' } } }],
    ]);
    expect(compareRuns({ run: 'r1', items: before }, { run: 'r2', items: after }).changed).toEqual([
      {
        key: 'acme',
        fields: [
          { path: 'steps.brief.status', before: 'skipped', after: 'completed' },
          { path: 'steps.profile.output.headcount', before: 120, after: 150 },
        ],
      },
    ]);
  });
});
