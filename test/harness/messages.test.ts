import path from 'node:path';
import { FakeClock, WorkflowHarness, WorkflowNotRunningError, WorkflowUpdateFailedError } from '../support/harness';
import { describeScenarios } from '../support/scenario-env';
import {
  approvalStatusQuery,
  approveSignal,
  setLimitLaterUpdate,
  setLimitUpdate,
  type ApprovalStatus,
} from '../fixtures/harness-workflows';

const workflowsPath = path.join(__dirname, '../fixtures/harness-workflows');

describeScenarios('signals, queries and updates', { workflowsPath }, (env) => {
  it('wakes a workflow waiting on a condition when the signal arrives', async () => {
    const handle = await env().start<ApprovalStatus>('approvalWorkflow', { workflowId: 'approve-by-signal', args: [10] });
    await handle.signal(approveSignal, 'Grace');
    expect(await handle.result()).toEqual({ approvedBy: 'Grace', limit: 10 });
  });

  it('answers a query from the workflow state without changing it', async () => {
    const handle = await env().start<ApprovalStatus>('approvalWorkflow', { workflowId: 'query-state', args: [25] });
    expect(await handle.query(approvalStatusQuery)).toEqual({ limit: 25 });
    await handle.signal(approveSignal, 'Linus');
    expect(await handle.query(approvalStatusQuery)).toEqual({ approvedBy: 'Linus', limit: 25 });
  });

  it('rejects an update its validator refuses, with the validator message, and keeps the state', async () => {
    const handle = await env().start<ApprovalStatus>('approvalWorkflow', { workflowId: 'update-rejected', args: [10] });
    const rejection = handle.executeUpdate(setLimitUpdate, -5);
    await expect(rejection).rejects.toThrow(WorkflowUpdateFailedError);
    await expect(rejection).rejects.toThrow('limit must be positive, got -5');
    expect(await handle.query(approvalStatusQuery)).toEqual({ limit: 10 });
  });

  it('returns the value of an accepted update and applies it', async () => {
    const handle = await env().start<ApprovalStatus>('approvalWorkflow', { workflowId: 'update-accepted', args: [10] });
    expect(await handle.executeUpdate(setLimitUpdate, 50)).toBe(10);
    await handle.signal(approveSignal, 'Ada');
    expect(await handle.result()).toEqual({ approvedBy: 'Ada', limit: 50 });
  });

  it('fails an accepted update whose handler throws, with the failure message and type', async () => {
    const handle = await env().start<ApprovalStatus>('approvalWorkflow', { workflowId: 'update-fails', args: [10] });
    const failure = await handle.executeUpdate(setLimitUpdate, 5_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(failure).toMatchObject({ message: 'limit above the budget ceiling', type: 'LimitTooHigh' });
    expect(await handle.query(approvalStatusQuery)).toEqual({ limit: 10 });
  });

  it('delivers a signal sent by another workflow', async () => {
    const target = await env().start<ApprovalStatus>('approvalWorkflow', { workflowId: 'approve-externally', args: [1] });
    const approver = await env().start('approverWorkflow', { workflowId: 'approver', args: ['approve-externally'] });
    await approver.result();
    expect(await target.result()).toEqual({ approvedBy: 'approver-workflow', limit: 1 });
  });

  it('refuses a signal to a workflow that has completed', async () => {
    const handle = await env().start('approvalWorkflow', { workflowId: 'closed-before-signal', args: [1] });
    await handle.signal(approveSignal, 'first');
    await handle.result();
    await expect(handle.signal(approveSignal, 'second')).rejects.toThrow(WorkflowNotRunningError);
  });
});

describe('updates on the harness clock', () => {
  let harness: WorkflowHarness;
  beforeEach(async () => {
    harness = await WorkflowHarness.create({ workflowsPath, clock: new FakeClock() });
  });
  afterEach(() => harness.close());

  it('completes an update whose handler waits on a timer once the test lets that time pass', async () => {
    const handle = await harness.start<ApprovalStatus>('approvalWorkflow', { workflowId: 'slow-update', args: [10] });
    let settled = false;
    const update = handle.executeUpdate(setLimitLaterUpdate, 99).finally(() => (settled = true));
    await harness.sleep(59_999);
    expect(settled).toBe(false);
    await harness.sleep(1);
    expect(await update).toBe(99);
  });

  it('lets the workflow finish only after its update handler finished (allHandlersFinished)', async () => {
    const handle = await harness.start<ApprovalStatus>('approvalWorkflow', { workflowId: 'handlers-first', args: [10] });
    const update = handle.executeUpdate(setLimitLaterUpdate, 7);
    await handle.signal(approveSignal, 'Hopper');
    expect(await handle.result()).toEqual({ approvedBy: 'Hopper', limit: 7 });
    expect(await update).toBe(7);
  });
});
