import { itemSource, parsePipelineDefinition, resolveParameters } from '../../src/pipelines';
import { batchItemStatus } from '../../src/activities/pipeline-batch-record';
import type { PreparePipelineBatchInput } from '../../src/activities';
import { useTestbed, type Setup } from './helpers';

const testbed = useTestbed();
let t: Setup;
beforeEach(() => {
  t = testbed();
});

const PREFIX = 'pipelines/earnings/q3';

/** A `batch` step run of the given rows (fast mode: 0.10 USD a task) as the round activities see it. */
function run(rows: Array<{ ticker: string; name: string; note?: string }>): Omit<PreparePipelineBatchInput, 'take' | 'round' | 'budgetLeftUsd'> {
  const yaml = `
name: earnings
input:
  items:
${rows.map((row) => `    - ${JSON.stringify(row)}`).join('\n')}
  key: "{{ item.ticker | lower }}"
step:
  batch:
    name: earnings
    mode: fast
    query: "{{ item.name }} earnings{{ item.note }}"
outputs:
  - format: jsonl
budget_usd: 10
`;
  const loaded = parsePipelineDefinition(yaml, '/tmp/earnings.yaml');
  return {
    definition: loaded.definition,
    source: itemSource(loaded),
    params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
    runKey: 'q3',
    runDate: '2026-11-25',
    prefix: PREFIX,
  };
}

const lines = async (key: string): Promise<unknown[]> =>
  Buffer.from(await t.store.get(key))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
const record = async (key: string): Promise<unknown> => JSON.parse(Buffer.from(await t.store.get(`${PREFIX}/items/${key}.json`)).toString('utf8'));

describe('preparePipelineBatch', () => {
  it('takes tasks while their prices fit the budget, refuses unrunnable items and repeats, and says where the next round starts', async () => {
    const rows = [
      { ticker: 'A', name: 'Alpha', note: '' },
      { ticker: 'B', name: 'Beta' },
      { ticker: 'A', name: 'Again', note: '' },
      { ticker: 'C', name: 'Gamma', note: '' },
      { ticker: 'D', name: 'Delta', note: '' },
    ];
    const prepared = await t.env().call(t.activities.preparePipelineBatch, { ...run(rows), take: { from: 'input', skip: 0 }, round: 0, budgetLeftUsd: 0.25 });
    // A fits; B lacks its note (failed, recorded); the second A repeats a key; C fits; D would pass 0.25 USD.
    expect(prepared).toMatchObject({
      read: 4,
      reused: 0,
      invalid: 2,
      reservedUsd: 0.2,
      exhausted: false,
      blockedUsd: 0.1,
      next: { from: 'input', skip: 4 },
      tasksRef: { count: 2 },
    });
    expect(prepared.problems).toEqual([
      { key: 'b', error: expect.stringContaining('item.note') },
      { key: 'a', error: expect.stringContaining("repeats an earlier item's key") },
    ]);
    expect(await lines(prepared.tasksRef!.key)).toEqual([
      { id: 'a', query: 'Alpha earnings' },
      { id: 'c', query: 'Gamma earnings' },
    ]);
    expect(await lines(prepared.itemsKey!)).toEqual([
      { key: 'a', index: 0, attempts: 1 },
      { key: 'c', index: 3, attempts: 1 },
    ]);
    expect(await record('b')).toMatchObject({ status: 'failed', attempts: 0, costUsd: 0 });
  });

  it('skips items an earlier execution completed, and reads the source to its end', async () => {
    await t.store.put(
      `${PREFIX}/items/a.json`,
      JSON.stringify({ key: 'a', index: 0, status: 'completed', attempts: 1, costUsd: 0.1, finishedAt: 1 }),
      'application/json',
    );
    const prepared = await t.env().call(t.activities.preparePipelineBatch, {
      ...run([
        { ticker: 'A', name: 'Alpha', note: '' },
        { ticker: 'B', name: 'Beta', note: '' },
      ]),
      take: { from: 'input', skip: 0 },
      round: 1,
      budgetLeftUsd: 5,
    });
    expect(prepared).toMatchObject({ read: 2, reused: 1, invalid: 0, exhausted: true, tasksRef: { count: 1 } });
    expect(prepared.blockedUsd).toBeUndefined();
  });

  it('writes nothing and reserves nothing when no task fits', async () => {
    const prepared = await t.env().call(t.activities.preparePipelineBatch, {
      ...run([{ ticker: 'A', name: 'Alpha', note: '' }]),
      take: { from: 'input', skip: 0 },
      round: 0,
      budgetLeftUsd: 0.05,
    });
    expect(prepared).toMatchObject({ read: 0, reservedUsd: 0, blockedUsd: 0.1, exhausted: false });
    expect(prepared.tasksRef).toBeUndefined();
  });
});

describe('recordPipelineBatch and the retry round after it', () => {
  it('records every task, sends failed ones with attempts left to a retry round, and counts only final outcomes', async () => {
    const ref = run([
      { ticker: 'A', name: 'Alpha', note: '' },
      { ticker: 'B', name: 'Beta', note: '' },
      { ticker: 'C', name: 'Gamma', note: '' },
    ]);
    const prepared = await t.env().call(t.activities.preparePipelineBatch, { ...ref, take: { from: 'input', skip: 0 }, round: 0, budgetLeftUsd: 5 });
    const collected = [
      { batchTaskId: 'a', deepresearchId: 'dr_a', status: 'completed', sourceCount: 3, cost: 0.1 },
      { batchTaskId: 'b', deepresearchId: 'dr_b', status: 'failed', sourceCount: 0, cost: 0.02, error: 'the model gave up' },
    ];
    const manifest = await t.store.put(`${PREFIX}/manifest-0.jsonl`, collected.map((task) => `${JSON.stringify(task)}\n`).join(''), 'application/x-ndjson');
    const recorded = await t.env().call(t.activities.recordPipelineBatch, {
      prefix: PREFIX,
      round: 0,
      itemsKey: prepared.itemsKey!,
      tasksKey: prepared.tasksRef!.key,
      workflowId: 'research-batch/earnings/q3/1',
      manifests: [manifest],
      cancelled: false,
      maxAttempts: 2,
    });
    // b failed and c was never reported: both have an attempt left, so they go to a retry round, not yet counted.
    expect(recorded).toMatchObject({ completed: 1, failed: 0, cancelled: 0, costUsd: 0.12, retry: { count: 2 } });
    expect(await record('a')).toMatchObject({ status: 'completed', costUsd: 0.1, workflowId: 'research-batch/earnings/q3/1', outputs: { sourceCount: 3 } });
    expect(await record('c')).toMatchObject({ status: 'failed', error: 'the batch did not report this task' });

    const retried = await t
      .env()
      .call(t.activities.preparePipelineBatch, { ...ref, take: { from: 'retry', ...recorded.retry!, skip: 0 }, round: 1, budgetLeftUsd: 0.15 });
    // Only one retry fits 0.15 USD: the next round of retries starts at the second.
    expect(retried).toMatchObject({ read: 0, reservedUsd: 0.1, exhausted: false, next: { from: 'retry', skip: 1 }, tasksRef: { count: 1 } });
    expect(await lines(retried.itemsKey!)).toEqual([{ key: 'b', index: 1, attempts: 2 }]);

    const final = await t.env().call(t.activities.recordPipelineBatch, {
      prefix: PREFIX,
      round: 1,
      itemsKey: retried.itemsKey!,
      tasksKey: retried.tasksRef!.key,
      workflowId: 'research-batch/earnings/q3/2',
      manifests: [],
      cancelled: true,
      maxAttempts: 2,
    });
    expect(final).toMatchObject({ completed: 0, failed: 0, cancelled: 1, costUsd: 0 });
    expect(final.retry).toBeUndefined();
  });

  it('ends a task the batch did not report as cancelled when the run was cancelled, else as failed', () => {
    expect(batchItemStatus(undefined, true)).toBe('cancelled');
    expect(batchItemStatus(undefined, false)).toBe('failed');
    expect(batchItemStatus({ deepresearchId: 'dr', status: 'completed', sourceCount: 0 }, true)).toBe('completed');
  });
});
