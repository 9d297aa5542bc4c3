import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { redactingTestLogger } from '../support/test-logger';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';
import { FIND_LIMIT, REQUEST_KEY_FIELD } from '../../src/activities/find-task';
import { FailureType } from '../../src/domain/failures';
import { minutes, startResearchHarness, type ResearchHarness } from '../support/research-harness';
import { ActivityTestEnvironment } from './helpers';

// The look-up after a create whose answer was lost, against the emulator over real HTTP, with more tasks
// created since the send than one page of the task list holds: it must still tell "created" from "not".
const WINDOW_TASKS = 260;
const OURS_AT = 40; // created 220th from the newest: beyond the first page

let h: ResearchHarness;
let dir: string;
let activities: ReturnType<typeof createActivities>;
const env = () =>
  new ActivityTestEnvironment({ attempt: 2, workflowExecution: { workflowId: 'wf-find', runId: 'r' } }, { logger: redactingTestLogger('error') });
const listCalls = () => Object.values(h.emulator.stats.snapshot().requests['deepresearch.list'] ?? {}).reduce((sum, count) => sum + count, 0);

beforeEach(async () => {
  h = await startResearchHarness({}, { defaultCreditsUsd: 1_000 });
  dir = await mkdtemp(path.join(tmpdir(), 'rp-find-'));
  activities = createActivities({ api: h.client, store: new LocalArtifactStore(dir), secrets: new InMemoryWebhookSecretStore() });
});
afterEach(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

/** `WINDOW_TASKS` tasks one second apart, each with its own query and request key; returns the id of the one at `OURS_AT`. */
async function fillWindow(): Promise<string> {
  let ours = '';
  for (let index = 0; index < WINDOW_TASKS; index++) {
    const created = await h.client.createTask({ query: `Question ${index}`, mode: 'fast', metadata: { [REQUEST_KEY_FIELD]: `run-1:item-${index}` } });
    if (index === OURS_AT) ours = created.deepresearch_id;
    await h.advance(1_000);
  }
  return ours;
}

describe(`findResearchTask with ${WINDOW_TASKS} tasks created since the send (more than the ${FIND_LIMIT} of one page)`, () => {
  test('in an account with no older task: finds a task beyond the first page, and settles "not created" from the whole list', async () => {
    const sentAt = new Date(h.clock.now()).toISOString();
    const ours = await fillWindow();
    const before = listCalls();
    const found = await env().call(activities.findResearchTask, { requestKey: `run-1:item-${OURS_AT}`, query: `Question ${OURS_AT}`, createdAfter: sentAt });
    expect(found).toMatchObject({ deepresearchId: ours, adopted: true });
    // A create whose task is not there: no task with its key, and the list read is every task of the account.
    expect(await env().call(activities.findResearchTask, { requestKey: 'run-1:item-lost', query: 'Question lost', createdAfter: sentAt })).toBeNull();
    // Same query as a task of another request: read in full, not ours, and still settled.
    expect(await env().call(activities.findResearchTask, { requestKey: 'run-1:item-other', query: `Question ${OURS_AT}`, createdAfter: sentAt })).toBeNull();
    // Each look read the first page, then the whole list.
    expect(listCalls() - before).toBe(6);
    expect(h.emulator.stats.snapshot().tasksCreated).toBe(WINDOW_TASKS);
  });

  test('with older tasks in the account: the whole list reaches back before the send; a first page that reaches back is read alone', async () => {
    for (let index = 0; index < 5; index++) await h.client.createTask({ query: `Old question ${index}`, mode: 'fast' });
    await h.advance(minutes(30));
    const sentAt = new Date(h.clock.now()).toISOString();
    const ours = await fillWindow();
    const before = listCalls();
    expect(
      await env().call(activities.findResearchTask, { requestKey: `run-1:item-${OURS_AT}`, query: `Question ${OURS_AT}`, createdAfter: sentAt }),
    ).toMatchObject({
      deepresearchId: ours,
    });
    expect(await env().call(activities.findResearchTask, { requestKey: 'run-1:item-lost', query: 'Question lost', createdAfter: sentAt })).toBeNull();
    expect(listCalls() - before).toBe(4);
    // Twenty minutes on, ten more tasks: a send just before them has a window the first page reaches back before.
    await h.advance(minutes(20));
    const lateSend = new Date(h.clock.now()).toISOString();
    const late = [];
    for (let index = 0; index < 10; index++)
      late.push(await h.client.createTask({ query: `Late question ${index}`, mode: 'fast', metadata: { [REQUEST_KEY_FIELD]: `late-${index}` } }));
    expect(await env().call(activities.findResearchTask, { requestKey: 'late-3', query: 'Late question 3', createdAfter: lateSend })).toMatchObject({
      deepresearchId: late[3]!.deepresearch_id,
    });
    expect(await env().call(activities.findResearchTask, { requestKey: 'late-lost', query: 'Late question lost', createdAfter: lateSend })).toBeNull();
    expect(listCalls() - before).toBe(6);
  });

  test('still refuses to guess when too many tasks in the window share the query', async () => {
    const sentAt = new Date(h.clock.now()).toISOString();
    for (let index = 0; index < 130; index++) {
      await h.client.createTask({
        query: index % 5 === 0 ? 'Shared question' : `Question ${index}`,
        mode: 'fast',
        metadata: { [REQUEST_KEY_FIELD]: `k-${index}` },
      });
      await h.advance(1_000);
    }
    await expect(env().call(activities.findResearchTask, { requestKey: 'k-lost', query: 'Shared question', createdAfter: sentAt })).rejects.toMatchObject({
      type: FailureType.CreateOutcomeUnknown,
      message: expect.stringContaining('too many to check'),
    });
  });
});
