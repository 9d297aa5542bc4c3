import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Page } from 'puppeteer-core';
import { loadPipelineDefinition } from '../../src/pipelines';
import { startPipeline } from '../../src/runs/start';
import { pipelineRunStateQuery, researchTaskStateQuery } from '../../src/workflows/definitions';
import { checkpointQuestions } from '../../src/workflows/task-state';
import { endedCanceled } from '../support/cancelled';
import { pipelineItemWorkflowId } from '../../src/domain/ids';
import { describeInBrowser } from '../support/browser';
import { describeScenarios } from '../support/scenario-env';
import { testServer } from '../support/server/test-server';
import { companies } from '../scenarios/pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';

/**
 * The operator's view, checked the way an operator sees it: the dev server's own Temporal UI in
 * headless Chromium (Debian's `chromium`; puppeteer-core drives it and downloads nothing). Screenshots
 * go to a temporary folder, or to `RP_UI_SCREENSHOTS` (the README's images: `docs/`).
 */
const server = testServer();
const uiUrl = server.available ? server.uiUrl : undefined;
const noUi = uiUrl ? undefined : 'the test server has no Temporal UI (TEMPORAL_ADDRESS names an outside server)';

describeInBrowser("the operator's view in the Temporal UI", { missing: noUi }, (ui) => {
  /** The text a person sees: the page's and its frames' (the UI renders summaries and details in sandboxed frames). */
  async function visibleText(page: Page): Promise<string> {
    const texts = await Promise.all(
      page
        .frames()
        .map((frame) =>
          frame.evaluate(() => (globalThis as unknown as { document: { body?: { innerText: string } } }).document.body?.innerText ?? '').catch(() => ''),
        ),
    );
    return texts.join('\n');
  }

  /** Opens `route` of the UI and waits until every text in `expected` shows; returns the visible text. */
  async function open(route: string, expected: string[], shot: string): Promise<{ page: Page; text: string }> {
    const { browser, shots } = ui();
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 1000 });
    await page.goto(`${uiUrl}${route}`, { waitUntil: 'networkidle2', timeout: 60_000 });
    const deadline = Date.now() + 30_000;
    let text = await visibleText(page);
    while (!expected.every((part) => text.includes(part)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      text = await visibleText(page);
    }
    await page.screenshot({ path: path.join(shots, shot), fullPage: false });
    const absent = expected.filter((part) => !text.includes(part));
    if (absent.length > 0)
      throw new Error(
        `${route} does not show ${absent.map((part) => JSON.stringify(part)).join(', ')} (screenshot: ${path.join(shots, shot)}); it shows:\n${text.slice(0, 3000)}`,
      );
    return { page, text };
  }

  describeScenarios('a pipeline run waiting at checkpoints', researchSetup, (getEnv) => {
    let world: ResearchWorld | undefined;
    afterEach(async () => world?.close());

    it("shows the run's summary, its current details, its search attributes, and its items in a query", async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
      const dir = await mkdtemp(path.join(tmpdir(), 'rp-ui-run-'));
      const file = path.join(dir, 'market-scan.yaml');
      await writeFile(
        file,
        `
name: market-scan
description: Profiles of the companies in a market, each plan reviewed by an analyst.
input:
  items:
${companies(2)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }} ({{ item.domain }}): products, customers, pricing."
    mode: fast
    hitl: { plan_review: true }
concurrency: 2
start_rate_per_second: 50
budget_usd: 5
`,
      );
      const runKey = `ui-${Date.now().toString(36)}`;
      const { handle, workflowId } = await startPipeline(
        env.client,
        await loadPipelineDefinition(file),
        {},
        { runKey, taskQueue: env.taskQueue, polling: world.polling },
      );
      await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).waiting.checkpoint.length === 2, {
        timeoutMs: 3_600_000,
        description: 'both items at their plan review',
      });
      const { runId } = await handle.describe();

      const at = `/namespaces/${server.available ? server.namespace : 'default'}/workflows/${encodeURIComponent(workflowId)}/${runId}`;
      // User Metadata: the static summary and details from the start, and the current details the run keeps up to date.
      const metadata = await open(`${at}/user-metadata`, [`Pipeline market-scan, run ${runKey}`, 'waiting for 2 answers'], 'pipeline-run-metadata.png');
      expect(metadata.text).toContain('Profiles of the companies in a market');
      expect(metadata.text).toMatch(/step: deepresearch · concurrency 2 · budget 5 USD/);
      expect(metadata.text).toMatch(/waiting for 2 answers(, oldest \d+s)? \(at a checkpoint\)/);
      expect(metadata.text).toContain('respondToCheckpoint');
      await metadata.page.close();

      const attributes = await open(
        `${at}/metadata`,
        ['"ResearchPipeline": "market-scan"', '"ResearchStatus": "running"'],
        'pipeline-run-search-attributes.png',
      );
      expect(attributes.text).toContain('"ResearchCostUsd"');
      await attributes.page.close();

      // Queries: the run's own state query is offered, and answers from the UI.
      const queries = await open(`${at}/query`, ['Run Query'], 'pipeline-run-queries.png');
      await queries.page.locator('::-p-text(Run Query)').click();
      await queries.page.waitForFunction(
        () => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes('"phase"'),
        { timeout: 30_000 },
      );
      await queries.page.screenshot({ path: path.join(ui().shots, 'pipeline-run-queries.png') });
      const answer = await visibleText(queries.page);
      expect(answer).toContain('"pipeline": "market-scan"');
      expect(answer).toMatch(/"checkpoint": \[\s*"company-1-example",\s*"company-2-example"\s*\]/);
      await queries.page.close();

      // An item: its summary names the run and the item, and each activity carries its own summary.
      const item = pipelineItemWorkflowId('market-scan', runKey, 'company-1-example');
      const childRun = (await env.client.workflow.getHandle(item).describe()).runId;
      const timeline = await open(
        `/namespaces/default/workflows/${encodeURIComponent(item)}/${childRun}/history`,
        ['getResearchTask', 'status of '],
        'research-task-timeline.png',
      );
      // Every activity the item scheduled carries its summary (the timeline shows the latest ones).
      const history = await env.client.workflow.getHandle(item).fetchHistory();
      const summaries = (history.events ?? [])
        .filter((event) => event.activityTaskScheduledEventAttributes)
        .map(
          (event) =>
            `${event.activityTaskScheduledEventAttributes!.activityType!.name} • ${defaultPayloadConverter.fromPayload<string>(event.userMetadata!.summary!)}`,
        );
      expect(summaries[0]).toBe('createResearchTask • create a DeepResearch task (fast): "Profile Company 1 (company-1.example): products, customers,…"');
      expect(summaries.slice(1).every((summary) => /^getResearchTask • status of \S+$/.test(summary))).toBe(true);
      await timeline.page.close();
      const child = await open(
        `/namespaces/default/workflows/${encodeURIComponent(item)}/${childRun}/user-metadata`,
        [`market-scan · run ${runKey} · item company-1-example`, 'plan_review', 'respondToCheckpoint'],
        'research-task-metadata.png',
      );
      expect(child.text).toContain('item company-1-example (item 1) · DeepResearch fast · 0.1 USD reserved');
      expect(child.text).toMatch(/\{"interactionId": "int_\w+", "response": \{"approved": true\}\}/);
      await child.page.close();

      const query = `ResearchPipeline="market-scan" AND ResearchStatus="running"`;
      // The README's query: this pipeline's running runs, one query away.
      const list = await open(
        `/namespaces/default/workflows?query=${encodeURIComponent(query)}`,
        [workflowId, 'ResearchPipeline = "market-scan"'],
        'runs-query.png',
      );
      expect(list.text).toMatch(/\b1\s+Workflow\b/);
      await list.page.close();
      await handle.cancel();
    });

    it("shows a running run's money as it is spent, and a cancelled run as Canceled", async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
      const dir = await mkdtemp(path.join(tmpdir(), 'rp-ui-live-'));
      const file = path.join(dir, 'news-watch.yaml');
      // Items start one a second, so the run is still running when its spending is shown (every 30 s or 25 items).
      await writeFile(
        file,
        `
name: news-watch
description: News of each company, one search each.
input:
  items:
${companies(60)}
  key: "{{ item.domain | slug }}"
step:
  search:
    query: "{{ item.name }} news"
concurrency: 2
start_rate_per_second: 1
budget_usd: 50
`,
      );
      const runKey = `live-${Date.now().toString(36)}`;
      const { handle, workflowId } = await startPipeline(
        env.client,
        await loadPipelineDefinition(file),
        {},
        { runKey, taskQueue: env.taskQueue, polling: world.polling },
      );
      const described = async () => (await handle.describe()).searchAttributes;
      await env.waitUntil(
        async () => {
          const attributes = await described();
          return attributes.ResearchStatus?.[0] === 'running' && Number(attributes.ResearchCostUsd?.[0] ?? 0) > 0;
        },
        { timeoutMs: 4 * 3_600_000, description: 'the running run to show money spent' },
      );
      const { runId } = await handle.describe();
      const at = `/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}`;
      const live = await open(`${at}/metadata`, ['"ResearchStatus": "running"', '"ResearchCostUsd"'], 'pipeline-run-live-cost.png');
      // More than nothing, while the run still runs.
      expect(live.text).toMatch(/"ResearchCostUsd": ([1-9]|0\.0*[1-9])/);
      await live.page.close();

      await handle.cancel();
      await endedCanceled(handle);
      const cancelled = await open(`${at}/history`, ['Canceled'], 'pipeline-run-cancelled.png');
      // The status badge: Canceled, not Completed.
      expect(cancelled.text).toMatch(/\bCANCELED\b/);
      expect(cancelled.text).not.toMatch(/\bCOMPLETED\b/);
      await cancelled.page.close();
      const attributes = await open(`${at}/metadata`, ['"ResearchStatus": "cancelled"'], 'pipeline-run-cancelled-attributes.png');
      await attributes.page.close();
    });

    it('shows the planning questions a task waits on, and the update dialog that answers them', async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
      const workflowId = `ui-planning-${Date.now().toString(36)}`;
      const handle = await env.start('researchTaskWorkflow', {
        workflowId,
        args: [{ request: { query: 'Heat pumps in cold climates', mode: 'fast', hitl: { planning_questions: true } }, polling: world.polling }],
      });
      await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).interaction?.type === 'planning_questions', {
        timeoutMs: 600_000,
        description: 'the planning questions',
      });
      const { interaction } = await handle.query(researchTaskStateQuery);
      const questions = checkpointQuestions(interaction!);
      expect(questions.length).toBeGreaterThan(0);
      const { runId } = await env.client.workflow.getHandle(workflowId).describe();
      const at = `/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}`;
      const waiting = await open(`${at}/user-metadata`, ['the research asks:', questions[0]!, 'respondToCheckpoint'], 'research-task-planning-questions.png');
      for (const question of questions) expect(waiting.text).toContain(question);
      await waiting.page.close();

      // Every timer the task started says why it waits.
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      const timers = (history.events ?? []).filter((event) => event.timerStartedEventAttributes);
      expect(timers.length).toBeGreaterThan(0);
      for (const timer of timers) expect(defaultPayloadConverter.fromPayload<string>(timer.userMetadata!.summary!)).toMatch(/^next status read in \d+ s: /);

      // The update dialog: respondToCheckpoint chosen, the answer the current details show typed in.
      const response = JSON.stringify({ answers: questions.map((question) => ({ question, answer: 'Northern Europe since 2020' })) });
      const dialog = await openUpdateDialog(at, `{"interactionId": "${interaction!.interaction_id}", "response": ${response}}`);
      expect(dialog.text).toContain('Send an Update');
      expect(dialog.text).toContain('respondToCheckpoint');
      expect(dialog.text).toContain(interaction!.interaction_id);
      await dialog.page.close();
      await handle.cancel();
    });
  });

  /** Clicks the innermost button or menu item whose text is `text`, in the page itself (the UI's menus re-render under a pointer). */
  async function clickText(page: Page, text: string): Promise<void> {
    await page.waitForFunction(
      (wanted: string) => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ innerText: string; click(): void }> } }).document;
        const found = Array.from(doc.querySelectorAll('button, [role="menuitem"], li, a')).filter((element) => element.innerText.trim() === wanted);
        found.at(-1)?.click();
        return found.length > 0;
      },
      { timeout: 15_000 },
      text,
    );
  }

  /** Opens the workflow's update dialog (More Actions, Send an Update) with respondToCheckpoint chosen and `answer` typed as its data. */
  async function openUpdateDialog(at: string, answer: string): Promise<{ page: Page; text: string }> {
    const { shots } = ui();
    const { page } = await open(`${at}/history`, ['Request Cancellation'], 'research-task-actions.png');
    await clickText(page, 'More Actions');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await page.screenshot({ path: path.join(shots, 'research-task-more-actions.png') });
    await clickText(page, 'Send an Update');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await page.click('dialog[open] #update-select-select');
    await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null; click(): void }> } })
          .document;
        const option = Array.from(doc.querySelectorAll('dialog[open] li[role="option"]')).find((element) =>
          element.textContent?.includes('respondToCheckpoint'),
        );
        option?.click();
        return option !== undefined;
      },
      { timeout: 15_000 },
    );
    const editor = await page.waitForSelector('dialog[open] .cm-content', { timeout: 15_000 });
    await editor!.click();
    await page.keyboard.type(answer);
    await page.waitForFunction(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes('Update'), {
      timeout: 15_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await page.screenshot({ path: path.join(shots, 'research-task-update-dialog.png') });
    // The open dialog's text and the values of its fields (the chosen update's name sits in an input).
    const text = await page.evaluate(() => {
      type Node = { textContent: string | null; querySelectorAll(selector: string): ArrayLike<{ value: string }> };
      const dialog = (globalThis as unknown as { document: { querySelector(selector: string): Node | null } }).document.querySelector('dialog[open]');
      return dialog
        ? `${dialog.textContent ?? ''}\n${Array.from(dialog.querySelectorAll('input'))
            .map((input) => input.value)
            .join('\n')}`
        : '';
    });
    return { page, text };
  }
});
