import * as path from 'node:path';
import { ScheduleAlreadyRunning, ScheduleNotFoundError } from '@temporalio/client';
import { loadPipelineDefinition } from '../../src/pipelines';
import { digestOfNote, isScheduleNotFound, NotScheduledError, planScheduleSync, scheduleOptionsFor } from '../../src/runs/schedules';

const EXAMPLES = path.join(__dirname, '../../pipelines');

describe('schedules of pipeline definitions', () => {
  it('plans creates, updates and deletes of managed schedules only', () => {
    const plan = planScheduleSync(
      [
        { id: 'pipeline-schedule/a', hash: '1' },
        { id: 'pipeline-schedule/b', hash: '2' },
        { id: 'pipeline-schedule/c', hash: '3' },
      ],
      [{ id: 'pipeline-schedule/b', hash: '2' }, { id: 'pipeline-schedule/c', hash: 'old' }, { id: 'pipeline-schedule/gone' }, { id: 'someone-elses' }],
    );
    expect(plan).toEqual({
      create: ['pipeline-schedule/a'],
      update: ['pipeline-schedule/c'],
      delete: ['pipeline-schedule/gone'],
      unchanged: ['pipeline-schedule/b'],
    });
  });

  it('makes a schedule from the schedule block: cron in its time zone, overlap, set parameters, change reports', async () => {
    const loaded = await loadPipelineDefinition(path.join(EXAMPLES, 'competitor-scan.yaml'));
    const options = scheduleOptionsFor(loaded, 'queue', { region: 'EU' });
    expect(options.scheduleId).toBe('pipeline-schedule/competitor-scan');
    expect(options.spec).toEqual({ cronExpressions: ['0 7 * * MON'], timezone: 'Europe/London' });
    expect(options.policies?.overlap).toBe('SKIP');
    expect(options.action).toMatchObject({ workflowType: 'pipelineRunWorkflow', workflowId: 'pipeline-run/competitor-scan/scheduled', taskQueue: 'queue' });
    const [input] = (options.action as unknown as { args: [{ params: Record<string, unknown>; compareWithPrevious: boolean; runKey?: string }] }).args;
    expect(input).toMatchObject({ params: { region: 'EU', since: '2026-01-01' }, compareWithPrevious: true });
    expect(input.runKey).toBeUndefined();
    expect(digestOfNote(options.state?.note)).toMatch(/^[0-9a-f]{16}$/);
    expect(digestOfNote(scheduleOptionsFor(loaded, 'queue', { region: 'US' }).state?.note)).not.toBe(digestOfNote(options.state?.note));
  });

  it('never terminates a running run for the next one: terminate_other cancels it, so it writes its outputs first', async () => {
    const loaded = await loadPipelineDefinition(path.join(EXAMPLES, 'competitor-scan.yaml'));
    const overlapOf = (overlap: string) =>
      scheduleOptionsFor({ ...loaded, definition: { ...loaded.definition, schedule: { ...loaded.definition.schedule!, overlap } } } as typeof loaded, 'queue')
        .policies?.overlap;
    expect(overlapOf('terminate_other')).toBe('CANCEL_OTHER');
    expect(overlapOf('cancel_other')).toBe('CANCEL_OTHER');
    expect(overlapOf('buffer_one')).toBe('BUFFER_ONE');
  });

  it('tells a schedule that is gone from other failures (a sync skips the first, rethrows the rest)', async () => {
    expect(await isScheduleNotFound(new ScheduleNotFoundError('schedule not found', 'pipeline-schedule/gone'))).toBe(true);
    expect(await isScheduleNotFound(new ScheduleAlreadyRunning('already exists', 'pipeline-schedule/a'))).toBe(false);
    expect(await isScheduleNotFound(new Error('unavailable'))).toBe(false);
  });

  it('refuses a definition without a schedule block', async () => {
    const loaded = await loadPipelineDefinition(path.join(EXAMPLES, 'quick-answers.yaml'));
    expect(() => scheduleOptionsFor(loaded, 'queue')).toThrow(NotScheduledError);
  });
});
