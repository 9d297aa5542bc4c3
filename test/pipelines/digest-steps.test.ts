import { markdownDigest, stepSection, type DigestItem } from '../../src/pipelines/digest';
import type { ItemStepView } from '../../src/pipelines/fan-in-steps';

/** A `steps:` item's digest entry: one section per step, with what each found, its status and its cost. */
describe('the Markdown digest of a steps item', () => {
  const profile: ItemStepView = {
    id: 'profile',
    kind: 'answer',
    status: 'completed',
    costUsd: 0.1,
    output: { hq_city: 'Seattle', headcount: 420 },
    files: [],
    sourcesCount: 2,
  };
  const news: ItemStepView = {
    id: 'news',
    kind: 'search',
    status: 'completed',
    costUsd: 0.015,
    output: [
      { title: 'Northwind raises <b>$40M</b>', url: 'https://news.example/northwind-raise', content: 'long page text' },
      { url: 'https://blog.example/robots' },
    ],
    files: [],
    sourcesCount: 2,
  };
  const brief: ItemStepView = {
    id: 'brief',
    kind: 'deepresearch',
    status: 'completed',
    costUsd: 0.1,
    report: { key: 'r.md', uri: 'file:///x/r.md' },
    files: [],
    sourcesCount: 14,
  };

  const digestOf = (steps: ItemStepView[], found: Record<string, Parameters<typeof stepSection>[1]> = {}, status: DigestItem['status'] = 'completed'): string =>
    markdownDigest({
      title: 'company-enrichment: run r1',
      items: [
        {
          key: 'northwind-robotics-example',
          status,
          costUsd: steps.reduce((sum, step) => sum + step.costUsd, 0),
          fields: [{ name: 'company', value: 'Northwind Robotics' }],
          sections: steps.map((step) => stepSection(step, found[step.id])),
        },
      ],
      totals: { spentUsd: 0.215, budgetUsd: 5 },
    });

  it("shows each completed step under its id and kind: an answer's fields and sources, a search's results as links, a report's summary", () => {
    const digest = digestOf([profile, news, brief], {
      profile: { sources: [{ title: 'Northwind about', url: 'https://northwind.example/about' }] },
      brief: { summary: 'Northwind sells **picking robots** to grocers.', sources: [{ url: 'https://a.example/' }] },
    });
    expect(digest).toContain(
      '#### profile · answer (0.1000 USD)\n\n*completed*\n\n- **hq\\_city**: Seattle\n- **headcount**: 420\n\nSources (2): [Northwind about](<https://northwind.example/about>) and 1 more',
    );
    expect(digest).toContain(
      '#### news · search (0.0150 USD)\n\n*completed*\n\nSources (2): [Northwind raises &lt;b&gt;$40M&lt;/b&gt;](<https://news.example/northwind-raise>) · [https://blog.example/robots](<https://blog.example/robots>)',
    );
    expect(digest).toContain(
      '#### brief · deepresearch (0.1000 USD)\n\n*completed*\n\n> Northwind sells **picking robots** to grocers.\n\nSources (14): [https://a.example/](<https://a.example/>) and 13 more',
    );
    // The search results' page text stays in the JSONL, out of the digest.
    expect(digest).not.toContain('long page text');
  });

  it('says why a step was skipped, and shows no sources for it', () => {
    const skipped: ItemStepView = {
      id: 'brief',
      kind: 'deepresearch',
      status: 'skipped',
      costUsd: 0,
      files: [],
      skippedBecause: 'when: item.tier equals "A" did not hold',
    };
    const digest = digestOf([profile, skipped]);
    expect(digest).toContain('#### brief · deepresearch (0.0000 USD)\n\n*skipped*: when: item.tier equals "A" did not hold');
    expect(digest.split('#### brief')[1]).not.toContain('Sources');
  });

  it("shows a failed step's error and the steps the item never reached, with what the earlier steps found", () => {
    const failed: ItemStepView = { id: 'news', kind: 'search', status: 'failed', costUsd: 0, files: [], error: 'the service refused: <b>quota</b>' };
    const notRun: ItemStepView = { id: 'brief', kind: 'deepresearch', status: 'not_run', costUsd: 0, files: [] };
    const digest = digestOf([profile, failed, notRun], {}, 'failed');
    expect(digest).toContain('*failed* · 0.1000 USD');
    expect(digest).toContain('- **hq\\_city**: Seattle');
    expect(digest).toContain('#### news · search (0.0000 USD)\n\n*failed*: the service refused: &lt;b&gt;quota&lt;/b&gt;\n\n#### brief');
    expect(digest).toContain('#### brief · deepresearch (0.0000 USD)\n\n*not run: the item stopped before this step*');
    expect(digest).not.toContain('<b>');
    // Sources counted but not at hand are counted, not listed.
    expect(digest).toContain('- **headcount**: 420\n\nSources: 2\n');
  });

  it("shows an answer step's text, and no report summary for a step that did not complete", () => {
    expect(stepSection({ ...profile, output: 'Seattle, about 420 people.' }).answer).toBe('Seattle, about 420 people.');
    expect(stepSection({ ...brief, status: 'cancelled' }, { summary: 'half a report' }).answer).toBeUndefined();
  });
});
