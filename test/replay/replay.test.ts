import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { installTestRuntime } from '../support/test-logger';

import { writeDeleteBeforeStoreWorkflow } from './reordered-workflow';

const HISTORIES = path.join(__dirname, '..', 'fixtures', 'histories');
const WORKFLOWS = require.resolve('../../src/workflows');

async function fixtures(): Promise<Array<{ workflowId: string; history: unknown }>> {
  const names = (await readdir(HISTORIES)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => ({
      workflowId: path.basename(name, '.json'),
      history: JSON.parse(await readFile(path.join(HISTORIES, name), 'utf8')) as unknown,
    })),
  );
}

// Warnings only, redacted as a real worker's are; a runtime another suite in this process installed is kept.
beforeAll(() => installTestRuntime());

describe("recorded histories replay on today's workflow code", () => {
  jest.setTimeout(120_000);

  it('has recorded histories of the main scenarios to replay', async () => {
    const names = (await fixtures()).map(({ workflowId }) => workflowId);
    expect(names).toEqual(
      expect.arrayContaining([
        'task-poll-only',
        'task-webhook',
        'task-poll-grid',
        'task-webhook-store',
        'task-checkpoints',
        'task-cancelled',
        'task-lost-create',
        'task-credits-wait',
        'task-operator-wait',
        'task-resolve-create',
        'task-delete-after',
        'batch-250',
        'batch-by-reference',
        'pipeline-run',
        'pipeline-batch',
        'pipeline-continue-as-new',
        'pipeline-answer-retries',
        'pipeline-pause-cancel',
        'pipeline-credits-wait',
        'pipeline-budget-raise',
        'pipeline-checkpoint-wait',
        'pipeline-synthesis',
        'pipeline-contents',
        'pipeline-carries-item',
        'pipeline-adopts-item',
        'pipeline-search-budget',
        'pipeline-sql-sink-rows',
        'pipeline-carries-steps-item',
        'pipeline-adopts-steps-item',
        'pipeline-batched-items',
        'pipeline-batch-records',
        'pipeline-read-ahead',
      ]),
    );
  });

  it('replays every recorded history without a determinism error', async () => {
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS, replayName: 'fixtures' }, await fixtures())) results.push(result);
    const failures = results.filter((result) => result.error).map((result) => `${result.workflowId}: ${String(result.error)}`);
    expect(failures).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(7);
  });

  it('catches a workflow change that running workflows could not survive', async () => {
    const [poll] = (await fixtures()).filter(({ workflowId }) => workflowId === 'task-poll-only');
    const results = [];
    const changed = path.join(__dirname, 'changed-workflows.ts');
    for await (const result of Worker.runReplayHistories({ workflowsPath: changed, replayName: 'changed' }, [poll!])) results.push(result);
    expect(results[0]?.error).toBeInstanceOf(DeterminismViolationError);
  });

  it('catches two calls swapped: the task deleted at the service before its outputs are stored', async () => {
    const [deleted] = (await fixtures()).filter(({ workflowId }) => workflowId === 'task-delete-after');
    expect(deleted).toBeDefined();
    // Inside the project, so the copy's package imports resolve as the original's do.
    const dir = await mkdtemp(path.join(__dirname, '.reordered-'));
    try {
      const workflowsPath = await writeDeleteBeforeStoreWorkflow(dir);
      const results = [];
      for await (const result of Worker.runReplayHistories({ workflowsPath, replayName: 'reordered' }, [deleted!])) results.push(result);
      expect(results[0]?.error).toBeInstanceOf(DeterminismViolationError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
