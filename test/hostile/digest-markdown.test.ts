import MarkdownIt from 'markdown-it';
import { markdownDigest, type DigestItem } from '../../src/pipelines/digest';

/**
 * A digest is passed on and opened in Markdown viewers; items, answers and sources come from outside
 * (a CSV, the web pages the service read). Whatever they hold, the rendered digest runs no script,
 * loads no image and links nowhere but to http(s) sources.
 */
describe('a digest over hostile item data, answers and sources', () => {
  const hostile: DigestItem = {
    key: 'evil',
    status: 'completed',
    costUsd: 0.01,
    fields: [
      { name: '<img src=x onerror=alert(1)>', value: '![pixel](https://tracker.example/p.gif) [x](javascript:alert(1))' },
      { name: 'note', value: '<script>alert(1)</script>\n# not a heading\n- not a list' },
    ],
    sections: [
      {
        fields: [{ name: 'html', value: '<a href="javascript:alert(1)">click</a>' }],
        answer: 'Fine text.\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[phish](javascript:alert(1)) ![i](https://tracker.example/a.gif)',
        sources: [
          { title: 'js', url: 'javascript:alert(1)' },
          { title: 'data', url: 'data:text/html,<script>alert(1)</script>' },
          { title: 'spaces', url: 'https://a.example/x y' },
          { title: 'angle', url: 'https://a.example/x>y' },
          { title: 'ok ](javascript:alert(1))', url: 'https://ok.example/page' },
        ],
        sourcesCount: 5,
        costUsd: 0.01,
      },
    ],
  };
  const markdown = markdownDigest({ title: 'scan <b>x</b>', description: '# injected', items: [hostile], totals: { spentUsd: 0.01, budgetUsd: 1 } });
  const html = new MarkdownIt({ html: true }).render(markdown); // even a viewer that passes raw HTML through

  it('renders no script, image or raw HTML element from the data', () => {
    expect(html).not.toMatch(/<script|<img|<b>|<[a-z]+ [^>]*onerror|<a href="javascript/i);
  });

  it('links only the http(s) sources whose address is written safely', () => {
    const links = [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);
    expect(links).toEqual(['https://ok.example/page']);
  });

  it('keeps the data readable as text', () => {
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('ok ](javascript:alert(1))');
    expect(markdown.split('\n').filter((line) => line.startsWith('# '))).toEqual(['# scan &lt;b&gt;x&lt;/b&gt;']);
  });
});
