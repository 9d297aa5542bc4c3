import type { ResearchClient } from '../../src/api/client';
import { ResearchApiError } from '../../src/api/errors';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { EmulatorHttpError } from '../../src/emulator/types';
import { resolveWorkflowForTask } from '../../src/emulator/workflows-beta';
import { FakeClock } from '../support/fake-clock';
import { rawCall, rejectionOf, useEmulator } from './helpers';

describe('workflows (beta)', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator(
    () => ({ clock: new FakeClock() }),
    (started) => ({ emulator, client } = started),
  );

  it('lists curated and organisation workflows with their current version and variables', async () => {
    const workflows = await client.listWorkflows();
    const slugs = workflows.map((workflow) => `${workflow.is_valyu ? 'curated' : 'organization'}:${workflow.slug}`);
    expect(slugs).toEqual(
      expect.arrayContaining([
        'curated:company-profile',
        'curated:competitor-scan',
        'curated:literature-review',
        'organization:weekly-market-brief',
        'organization:vendor-risk-review',
      ]),
    );
    const profile = workflows.find((workflow) => workflow.slug === 'company-profile');
    expect(profile).toMatchObject({ version: 2, recommended_mode: 'standard', title: 'Company profile' });
    expect(profile?.variables?.map((variable) => variable.key)).toEqual(['company', 'website', 'focus']);
    expect(profile?.variables?.[2]).toMatchObject({ type: 'enum', validation: { enum: ['overview', 'financials', 'products'] } });
  });

  it('filters the list by scope', async () => {
    const answer = await rawCall(emulator, 'GET', '/workflows?scope=valyu');
    expect(answer.json).toMatchObject({ workflows: expect.any(Array), total: 4 });
    const { workflows } = answer.json as { workflows: Array<{ is_valyu: boolean }> };
    expect(new Set(workflows.map((workflow) => workflow.is_valyu))).toEqual(new Set([true]));
    const refused = await rawCall(emulator, 'GET', '/workflows?scope=curated');
    expect(refused.json).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('query.scope') });
  });

  it('gets one workflow by slug', async () => {
    const workflow = await client.getWorkflow('literature-review');
    expect(workflow).toMatchObject({ slug: 'literature-review', is_valyu: true, version: 2, prompt: expect.stringContaining('{{topic}}') });
    const pinned = await rawCall(emulator, 'GET', '/workflows/literature-review?version=1');
    expect(pinned.json).toMatchObject({ slug: 'literature-review', version: 1, changelog: 'First version.' });
  });

  it('lists immutable versions with exactly one current', async () => {
    const { slug, versions } = await client.listWorkflowVersions('company-profile');
    expect(slug).toBe('company-profile');
    expect(versions.map((version) => [version.version, version.is_current])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(versions[0]).toMatchObject({
      recommended_mode: 'standard',
      estimated_time: expect.any(String),
      changelog: expect.any(String),
      created_at: expect.any(String),
    });
  });

  it('previews the current version with defaults, typed values and the mode price as credits', async () => {
    const preview = await client.previewWorkflow('competitor-scan', { workflow_params: { company: 'Acme Robotics', market: 'warehouse robots' } });
    expect(preview.workflow).toEqual({ slug: 'competitor-scan', version: 1 });
    expect(preview.resolved).toMatchObject({
      input: expect.stringContaining('Identify up to 5 competitors of Acme Robotics in warehouse robots'),
      mode: 'heavy',
      deliverables: [{ type: 'spreadsheet', description: 'Competitor comparison table for Acme Robotics' }],
      tools: { charts: true, code_execution: false },
      output_formats: ['markdown'],
    });
    expect(preview.estimated_credits).toBe(2.5);
  });

  it('previews a pinned older version', async () => {
    const preview = await client.previewWorkflow('company-profile', { workflow_params: { company: 'Globex' }, workflow_version: 1 });
    expect(preview.workflow).toEqual({ slug: 'company-profile', version: 1 });
    expect(preview.resolved.input).toBe('Write a company profile of Globex.');
  });

  it('answers 404 workflow_version_not_found for an unknown version', async () => {
    const answer = await rawCall(emulator, 'POST', '/workflows/company-profile/preview', { body: { workflow_params: { company: 'x' }, workflow_version: 9 } });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'workflow_version_not_found', message: expect.stringContaining('no version 9') });
  });

  it.each([
    [{}, 'workflow_params.company: is required (string)'],
    [{ company: 'Acme', market: 'x', max_competitors: 2.5 }, 'workflow_params.max_competitors: must be an integer'],
    [{ company: 'Acme', market: 'x', since: '2025-13-01' }, 'workflow_params.since: must be a date in YYYY-MM-DD form'],
    [{ company: 'Acme', market: 7 }, 'workflow_params.market: must be a non-empty string'],
    [{ company: 'Acme', market: 'x', colour: 'red' }, 'workflow_params.colour: is not a variable of workflow "competitor-scan"'],
  ])('answers 400 invalid_workflow_params naming the variable for %j', async (params, message) => {
    const answer = await rawCall(emulator, 'POST', '/workflows/competitor-scan/preview', { body: { workflow_params: params } });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_workflow_params', message: expect.stringContaining(message) });
  });

  it('checks enum variables against their options', async () => {
    const error = await rejectionOf(client.previewWorkflow('company-profile', { workflow_params: { company: 'Acme', focus: 'gossip' } }));
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_workflow_params',
      serviceMessage: 'workflow_params.focus: must be one of overview, financials, products',
    });
  });

  it('answers 400 invalid_request for a malformed preview body', async () => {
    const answer = await rawCall(emulator, 'POST', '/workflows/company-profile/preview', { body: { params: {} } });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('params') });
  });

  it('soft-deletes an organisation workflow, which then is gone from list and get', async () => {
    const deleted = await client.deleteWorkflow('vendor-risk-review');
    expect(deleted).toEqual({ slug: 'vendor-risk-review', deleted_at: new Date(emulator.clock.now()).toISOString() });
    expect((await client.listWorkflows()).map((workflow) => workflow.slug)).not.toContain('vendor-risk-review');
    const error = await rejectionOf(client.getWorkflow('vendor-risk-review'));
    expect(error).toMatchObject({ status: 404, code: 'workflow_not_found' });
  });

  it('refuses to delete a curated workflow with 403 cannot_edit_svc_workflow', async () => {
    const answer = await rawCall(emulator, 'DELETE', '/workflows/company-profile');
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ error: 'cannot_edit_svc_workflow', message: expect.stringContaining('read-only') });
  });

  it.each([
    ['GET', '/workflows/no-such-flow'],
    ['GET', '/workflows/no-such-flow/versions'],
    ['POST', '/workflows/no-such-flow/preview'],
    ['DELETE', '/workflows/no-such-flow'],
  ])('answers 404 workflow_not_found on %s %s', async (method, path) => {
    const answer = await rawCall(emulator, method, path, { body: method === 'POST' ? { workflow_params: {} } : undefined });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'workflow_not_found', message: 'No workflow matches the slug "no-such-flow"' });
  });
});

describe('workflows per organisation', () => {
  it('keeps a deletion inside the organisation that made it', async () => {
    const emulator = await startEmulator({
      accounts: [
        { key: 'key_org_a_00001', organization: 'org_a', creditsUsd: 1 },
        { key: 'key_org_b_00001', organization: 'org_b', creditsUsd: 1 },
      ],
    });
    await rawCall(emulator, 'DELETE', '/workflows/weekly-market-brief', { apiKey: 'key_org_a_00001' });
    expect((await rawCall(emulator, 'GET', '/workflows/weekly-market-brief', { apiKey: 'key_org_a_00001' })).status).toBe(404);
    expect((await rawCall(emulator, 'GET', '/workflows/weekly-market-brief', { apiKey: 'key_org_b_00001' })).status).toBe(200);
    await emulator.close();
  });
});

describe('resolveWorkflowForTask', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator();
  });
  afterEach(() => emulator.close());

  const account = () => {
    const found = emulator.accounts.find(emulator.defaultApiKey);
    if (!found) throw new Error('no default account');
    return found;
  };

  it('resolves the current version for a task', () => {
    const resolution = resolveWorkflowForTask(account(), 'literature-review', { topic: 'GLP-1', from_date: '2024-01-01' });
    expect(resolution).toMatchObject({ slug: 'literature-review', version: 2, estimatedCredits: 2.5 });
    expect(resolution.resolved).toMatchObject({
      mode: 'heavy',
      input: expect.stringContaining('GLP-1 published since 2024-01-01. Include preprints: true. Depth: thorough'),
    });
  });

  it('throws the workflow error forms', () => {
    const missing = (() => {
      try {
        resolveWorkflowForTask(account(), 'nope', {});
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(EmulatorHttpError);
    expect(missing).toMatchObject({ status: 404, body: { error: 'workflow_not_found' } });
    expect(() => resolveWorkflowForTask(account(), 'regulatory-watch', { topic: 'AI' })).toThrow('workflow_params.jurisdiction: is required');
  });

  it('is what task creation with workflow_id uses', async () => {
    const created = await rawCall(emulator, 'POST', '/deepresearch/tasks', {
      body: { workflow_id: 'regulatory-watch', workflow_params: { topic: 'AI', jurisdiction: 'EU', since: '2025-01-01' } },
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ mode: 'fast' });
    const refused = await rawCall(emulator, 'POST', '/deepresearch/tasks', { body: { workflow_id: 'regulatory-watch', workflow_params: { topic: 'AI' } } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'invalid_workflow_params' });
  });
});
