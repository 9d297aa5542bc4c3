import type { ScheduleHandle } from '@temporalio/client';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { itemSource, parsePipelineDefinition } from '../../src/pipelines';
import { scheduleOptionsFor } from '../../src/runs/schedules';
import { notifySecret, startReceiver } from '../support/notify-receiver';
import { describeScenarios } from '../support/scenario-env';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

/** A scheduled pipeline whose definition names a receiver; its runs compare their results with the previous run's. */
const watch = (items: string[], receiver: string) => `
name: watch
input:
  items: [${items.join(', ')}]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }}"
    data_max_price: 0.05
concurrency: 3
start_rate_per_second: 50
budget_usd: 5
notify: ["${receiver}/hook"]
schedule:
  cron: "0 8 * * MON"
  timezone: Europe/London
`;

describeScenarios('run.changes_found from scheduled runs', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let schedule: ScheduleHandle | undefined;
  afterEach(async () => {
    await schedule?.delete().catch(() => undefined);
    await world?.close();
    world = schedule = undefined;
  });

  it('a scheduled run whose results changed since the previous run tells its receivers, signed; one with no changes does not', async () => {
    const env = getEnv();
    const secret = notifySecret();
    const receiver = await startReceiver(secret);
    try {
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { notifySecret: secret } });
      const options = (items: string[]) => {
        const loaded = parsePipelineDefinition(watch(items, receiver.url), '/nonexistent/watch.yaml');
        const made = scheduleOptionsFor(loaded, env.taskQueue);
        // The scenario's worker polls faster than the standard profile (its emulator's clock runs faster).
        const [input] = made.action.args as [Record<string, unknown>];
        expect(input).toMatchObject({ source: itemSource(loaded), compareWithPrevious: true });
        return { ...made, action: { ...made.action, args: [{ ...input, polling: world!.polling }] } };
      };
      /** Fires the schedule now and waits for the run's end: its result, and its events as the receiver took them. */
      const fire = async (fires: number) => {
        // A scheduled run's id ends in its start time to the second: two fires in one second would share it.
        if (fires > 1) await new Promise((resolve) => setTimeout(resolve, 1_100));
        await schedule!.trigger();
        await env.waitUntil(() => receiver.accepted('run.completed').length === fires, { timeoutMs: 3_600_000, description: `scheduled run ${fires} told` });
        const ended = receiver.accepted('run.completed')[fires - 1]!.event!.data as { workflowId: string; runKey: string };
        // The run sends every event before it returns: nothing of this run can come later.
        const result = await env.client.workflow.getHandle(ended.workflowId).result();
        return { result: result as PipelineRunResult, runKey: ended.runKey };
      };

      const created = options(['Acme', 'Globex', 'Initech']);
      schedule = await env.client.schedule.create({ ...created, state: { ...created.state, paused: true } });

      // The first run has nothing to compare with; the second got the same results.
      const first = await fire(1);
      expect(first.result.outputs.changes).toBeUndefined();
      const second = await fire(2);
      expect(second.result.outputs.changes).toBeDefined();
      expect(receiver.accepted('run.changes_found')).toEqual([]);

      // The definition changes (one item out, one in): the third run's results differ from the second's.
      const changed = options(['Acme', 'Initech', 'Hooli']);
      await schedule.update((previous) => ({ ...previous, action: { ...previous.action, ...changed.action } }));
      const third = await fire(3);
      expect(third.result.counts).toMatchObject({ completed: 3 });
      const found = receiver.accepted('run.changes_found');
      expect(found).toHaveLength(1);
      expect(found[0]!.verified).toBe(true);
      expect(found[0]!.path).toBe('/hook');
      expect(found[0]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(found[0]!.event!.data).toMatchObject({
        pipeline: 'watch',
        runKey: third.runKey,
        phase: 'completed',
        changes: { added: 1, removed: 1 },
        outputs: { changes: { key: third.result.outputs.changes!.key } },
      });
      expect(receiver.deliveries.every((delivery) => delivery.verified)).toBe(true);
      expect(receiver.accepted('run.completed')).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });
});
