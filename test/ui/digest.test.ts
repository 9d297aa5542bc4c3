import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';
import type { Page } from 'puppeteer-core';
import type { PipelineRunInput, PipelineRunResult } from '../../src/domain/pipeline-types';
import { itemSource, loadPipelineDefinition, resolveParameters } from '../../src/pipelines';
import { reportSummary } from '../../src/pipelines/digest';
import { describeInBrowser, type BrowserSession } from '../support/browser';
import { describeScenarios } from '../support/scenario-env';
import { pipelineInput } from '../scenarios/pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';

/**
 * The run's digest as the person it is sent to sees it: a pipeline runs on the dev server against the
 * emulator, its Markdown digest is rendered to HTML with markdown-it (as a Markdown viewer would) and
 * opened in headless Chromium (Debian's `chromium`). The screenshot and the HTML go to the UI tests'
 * artefact folder: a temporary one, or `RP_UI_SCREENSHOTS`.
 */
const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:900px;margin:24px auto;color:#1f2328}
blockquote{margin:0 0 12px;padding:0 12px;color:#444;border-left:4px solid #d0d7de}h3{margin-top:28px;border-bottom:1px solid #d8dee4}`;

const EXAMPLE = path.resolve(__dirname, '../../pipelines/company-enrichment.yaml');

/** Renders `markdown` as a Markdown viewer would (markdown-it, raw HTML off), writes `<name>.html`, opens it without scripts and saves `<name>.png`. */
async function openDigest({ browser, shots }: BrowserSession, markdown: string, name: string): Promise<Page> {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>digest</title><style>${STYLE}</style></head><body>${new MarkdownIt({ html: false, linkify: false }).render(markdown)}</body></html>`;
  const htmlFile = path.join(shots, `${name}.html`);
  await writeFile(htmlFile, html);
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 1400 });
  await page.setJavaScriptEnabled(false);
  await page.goto(pathToFileURL(htmlFile).href, { waitUntil: 'load' });
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  return page;
}

describeInBrowser("the run's digest in a browser", {}, (ui) => {
  describeScenarios('a DeepResearch run over a CSV', researchSetup, (getEnv) => {
    let world: ResearchWorld | undefined;
    afterEach(async () => world?.close());

    it('reads as a report: totals, each item with its fields, summary, sources and cost, item data shown literally, no link to the disk', async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
      const input = await pipelineInput(
        `
name: storage-digest
description: Grid storage companies, one profile each.
input:
  csv: companies.csv
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "{{ item.name }} ({{ item.domain }}): technology, customers and funding."
    mode: fast
concurrency: 3
start_rate_per_second: 50
budget_usd: 2
outputs:
  - format: csv
    columns:
      company: "{{ item.name }}"
      segment: "{{ item.segment }}"
      website: "{{ item.website }}"
  - format: markdown
`,
        world,
        {
          runKey: 'digest-1',
          files: {
            'companies.csv':
              'name,domain,segment\nVoltaic Flow,voltaic.example,flow batteries\n"Acme <b>Storage</b> | *Inc*",acme.example,[thermal](file:///etc/passwd)\n',
          },
        },
      );
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/storage-digest/digest-1', args: [input] });
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 2, failed: 0 });
      expect(world.emulator.stats.snapshot().tasksCreated).toBe(2);
      // A column naming a field the CSV lacks is known only once the input is read: the run's outputs say so.
      expect(result.outputs.warnings).toEqual([
        'results.csv: column "website" ({{ item.website }}) is empty for all 2 items: the field it names is in no item',
      ]);
      const digestFile = result.outputs.files.find((file) => file.key.endsWith('results.md'))!;
      const markdown = await readFile(fileURLToPath(digestFile.uri), 'utf8');
      // Nothing on the worker's disk: not the store's folder, not a relative path into it.
      expect(markdown).not.toContain(fileURLToPath(result.outputs.folderUri).split('/pipelines/')[0]!);
      expect(markdown).not.toContain('../');
      expect(markdown).not.toMatch(/[^\\]\]\((?!<https?:)/);

      // What a Markdown viewer makes of it: markdown-it with raw HTML off, as GitHub-like viewers sanitise it.
      const page = await openDigest(ui(), markdown, 'digest');
      const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);
      const links = await page.$$eval('a', (anchors) => anchors.map((anchor) => anchor.getAttribute('href') ?? ''));
      const bold = await page.$$eval('b', (elements) => elements.length);
      const quotes = (await page.$$eval('blockquote', (elements) => elements.map((element) => (element as unknown as { innerText: string }).innerText))).filter(
        (quote) => !quote.startsWith('Warning'),
      );

      expect(text).toContain('storage-digest: run digest-1');
      expect(text).toContain('Grid storage companies, one profile each.');
      expect(text).toContain('Warning: results.csv: column "website" ({{ item.website }}) is empty for all 2 items');
      expect(text).toMatch(/2 items: 2 completed, 0 failed, 0 cancelled, 0 not started\./);
      expect(text).toMatch(/Cost: 0\.2000 of 2\.00 USD spent, 0\.1000 USD per completed item on average\. Sources cited: \d+\./);
      expect(text).toContain('1. voltaic-example');
      expect(text).toContain('company: Voltaic Flow');
      expect(text).toContain('segment: flow batteries');
      expect(text).toMatch(/completed · 0\.1000 USD/);
      // Each report's executive summary, not its title line, plan or sources list.
      expect(quotes).toHaveLength(2);
      expect(quotes[0]).toContain('Voltaic Flow');
      expect(quotes[1]).toContain('Acme');
      expect(quotes.join('\n')).not.toMatch(/DeepResearch report|Research plan|Sources/);
      const counts = [...text.matchAll(/Sources \((\d+)\): .+ and \d+ more/g)].map((match) => Number(match[1]));
      expect(counts).toHaveLength(2);
      expect(text).toContain(`Sources cited: ${counts[0]! + counts[1]!}.`);
      // Item data shows as written: no bold from its HTML or asterisks, no link from its Markdown.
      expect(text).toContain('company: Acme <b>Storage</b> | *Inc*');
      expect(text).toContain('segment: [thermal](file:///etc/passwd)');
      expect(bold).toBe(0);
      expect(links.length).toBeGreaterThan(0);
      expect(links.every((href) => /^https?:\/\//.test(href))).toBe(true);
      await page.close();
    });
  });

  describeScenarios('the company-enrichment example', researchSetup, (getEnv) => {
    let world: ResearchWorld | undefined;
    afterEach(async () => world?.close());

    it("shows each company's profile fields, news links and, for tier A, the brief's summary; the skipped brief says why", async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
      const loaded = await loadPipelineDefinition(EXAMPLE);
      const input: PipelineRunInput = {
        definition: { ...loaded.definition, start_rate_per_second: 50 },
        source: itemSource(loaded),
        params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
        polling: world.polling,
        runKey: 'digest-walk',
      };
      const result = await (
        await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/company-enrichment/digest-walk', args: [input] })
      ).result();
      expect(result.counts).toMatchObject({ completed: 5, failed: 0 });
      const jsonl = (await readFile(fileURLToPath(result.outputs.files.find((file) => file.key.endsWith('results.jsonl'))!.uri), 'utf8'))
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              key: string;
              item: { company: string; tier: string };
              steps: {
                profile: { output: { hq_city: string; headcount: number } };
                news: { output: Array<{ url: string; title: string }> };
                brief: { report?: string };
              };
            },
        );
      const markdown = await readFile(fileURLToPath(result.outputs.files.find((file) => file.key.endsWith('results.md'))!.uri), 'utf8');

      const page = await openDigest(ui(), markdown, 'enrichment-digest');
      // Each company's entry as the reader sees it: the text between its heading and the next one.
      const entries = await page.$$eval('h3', (headings) =>
        headings.map((heading) => {
          const parts: string[] = [(heading as unknown as { innerText: string }).innerText];
          const links: string[] = [];
          type Node = {
            tagName: string;
            innerText: string;
            nextElementSibling: Node | null;
            querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
          };
          for (
            let node = (heading as unknown as Node).nextElementSibling;
            node && node.tagName !== 'H3' && node.tagName !== 'H2';
            node = node.nextElementSibling
          ) {
            parts.push(node.innerText);
            for (const anchor of Array.from(node.querySelectorAll('a'))) links.push(anchor.getAttribute('href') ?? '');
          }
          return { text: parts.join('\n'), links };
        }),
      );
      const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);
      await page.close();

      expect(text).toContain('company-enrichment: run digest-walk');
      expect(text).toMatch(/5 items: 5 completed, 0 failed, 0 cancelled, 0 not started\./);
      expect(entries).toHaveLength(5);
      for (const [index, entry] of entries.entries()) {
        const line = jsonl[index]!;
        expect(entry.text).toContain(`${index + 1}. ${line.key}`);
        expect(entry.text).toContain(`company: ${line.item.company}`);
        expect(entry.text).toContain(`tier: ${line.item.tier}`);
        expect(entry.text).toMatch(/profile · answer \(0\.\d{4} USD\)\ncompleted/);
        expect(entry.text).toContain(`hq_city: ${line.steps.profile.output.hq_city}`);
        expect(entry.text).toContain(`headcount: ${line.steps.profile.output.headcount}`);
        expect(entry.text).toMatch(/news · search \(0\.\d{4} USD\)\ncompleted/);
        // The news step's results, as links with their titles.
        expect(line.steps.news.output.length).toBeGreaterThan(0);
        for (const found of line.steps.news.output) {
          expect(entry.links).toContain(found.url);
          expect(entry.text).toContain(found.title);
        }
        expect(entry.links.every((href) => /^https?:\/\//.test(href))).toBe(true);
        if (line.item.tier === 'A') {
          // The brief's summary, quoted, and no title line or sources list of the report.
          const brief = entry.text.split('brief · deepresearch')[1]!;
          expect(brief).toMatch(/^ \(0\.1000 USD\)\ncompleted\n\S/);
          const report = await readFile(fileURLToPath(line.steps.brief.report!), 'utf8');
          expect(brief).toContain(reportSummary(report).slice(0, 60));
          expect(brief).toMatch(/Sources \(\d+\): /);
          expect(brief).not.toMatch(/DeepResearch report|Research plan/);
        } else expect(entry.text).toContain('brief · deepresearch (0.0000 USD)\nskipped: when: item.tier equals "A" did not hold');
      }
    });
  });
});
