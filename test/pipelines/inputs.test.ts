import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError, readItems, readKeyedItems } from '../../src/pipelines';
import type { ItemCursor, ItemSource } from '../../src/pipelines';

const ROWS = 10_000;
let folder: string;
beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'rp-inputs-'));
  // Quoted fields with commas, a multi-byte name and a multi-line field make byte offsets and line numbers honest.
  const csv = ['\uFEFFid,company,note'];
  const jsonl: string[] = [];
  for (let row = 0; row < ROWS; row++) {
    csv.push(`${row},"Firma ${row}, Zürich",${row === 5 ? '"two\nlines"' : 'plain'}`);
    jsonl.push(JSON.stringify({ id: row, company: `Firma ${row}` }), ...(row % 1000 === 0 ? [''] : []));
  }
  writeFileSync(path.join(folder, 'rows.csv'), `${csv.join('\n')}\n`);
  writeFileSync(path.join(folder, 'rows.jsonl'), jsonl.join('\r\n')); // no final newline, CRLF, blank lines
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function pageThrough(source: ItemSource, limit: number) {
  const ids: number[] = [];
  const maxBytes: number[] = [];
  let cursor: ItemCursor | undefined;
  for (let pages = 0; pages < ROWS; pages++) {
    const page = await readItems(source, { cursor, limit });
    ids.push(...page.items.map((item) => Number((item.value as { id: string | number }).id)));
    maxBytes.push(page.bytesRead);
    cursor = page.cursor;
    if (page.done) return { ids, maxBytes, cursor };
  }
  throw new Error('never done');
}

describe.each([
  ['csv', 'rows.csv'],
  ['jsonl', 'rows.jsonl'],
] as const)('%s input read through a cursor', (kind, file) => {
  it(`pages through ${ROWS} rows exactly once, reading each page from its byte offset`, async () => {
    const source = { kind, path: path.join(folder, file) } as ItemSource;
    const { ids, maxBytes, cursor } = await pageThrough(source, 250);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, index) => index));
    expect(cursor.index).toBe(ROWS);
    // Memory stays bounded: no page read more than its own rows plus one stream buffer, far below the file.
    const fileBytes = cursor.fingerprint?.size ?? 0;
    expect(fileBytes).toBeGreaterThan(300_000);
    expect(Math.max(...maxBytes)).toBeLessThan(64 * 1024 + 250 * 64);
  });

  it('names the real line of an item on a later page', async () => {
    const source = { kind, path: path.join(folder, file) } as ItemSource;
    const first = await readItems(source, { limit: 10 });
    const second = await readItems(source, { cursor: first.cursor, limit: 1 });
    // CSV: header on line 1 and row 5 spans two lines; JSONL: a blank line follows row 0.
    expect(second.items[0]?.where).toBe(`${path.join(folder, file)}:${kind === 'csv' ? 13 : 12}`);
  });
});

describe('input errors', () => {
  it('refuses a file that changed since the first page', async () => {
    const file = path.join(folder, 'growing.jsonl');
    writeFileSync(file, '{"id":1}\n{"id":2}\n');
    const first = await readItems({ kind: 'jsonl', path: file }, { limit: 1 });
    appendFileSync(file, '{"id":3}\n');
    await expect(readItems({ kind: 'jsonl', path: file }, { cursor: first.cursor, limit: 1 })).rejects.toThrow(
      /input file changed since the run started reading it/,
    );
  });

  it('names the line of bad JSON', async () => {
    const file = path.join(folder, 'bad.jsonl');
    writeFileSync(file, '{"id":1}\n{"id":\n');
    await expect(readItems({ kind: 'jsonl', path: file }, { limit: 10 })).rejects.toThrow(InputError);
    await expect(readItems({ kind: 'jsonl', path: file }, { limit: 10 })).rejects.toThrow(/bad\.jsonl:2: not valid JSON/);
  });

  it.each(['csv', 'jsonl'] as const)('refuses a folder or a missing path given as the %s input, naming it, without an unhandled stream error', async (kind) => {
    const unhandled = jest.fn();
    process.on('uncaughtException', unhandled);
    try {
      const dir = path.join(folder, `a-folder.${kind}`);
      mkdirSync(dir, { recursive: true });
      await expect(readItems({ kind, path: dir }, { limit: 10 })).rejects.toThrow(
        new InputError(`${dir}: cannot read input file (a folder; name a CSV or JSONL file)`),
      );
      await expect(readItems({ kind, path: path.join(folder, `missing.${kind}`) }, { limit: 10 })).rejects.toThrow(
        /missing\.(csv|jsonl): cannot read input file \(ENOENT\)/,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('uncaughtException', unhandled);
    }
  });

  it('names the line of a CSV row with the wrong number of fields', async () => {
    const file = path.join(folder, 'bad.csv');
    writeFileSync(file, 'a,b\n1,2\n3\n');
    await expect(readItems({ kind: 'csv', path: file }, { limit: 10 })).rejects.toThrow(/bad\.csv:3: /);
  });
});

describe('inline and single items', () => {
  it('pages inline items and keys them', async () => {
    const source: ItemSource = { kind: 'inline', items: ['Acme Corp', 'Globex'] };
    const page = await readKeyedItems(source, '{{ item | slug }}', { params: {} }, { limit: 1 });
    expect(page).toMatchObject({ items: [{ index: 0, key: 'acme-corp', where: 'item 1' }], done: false });
    const last = await readKeyedItems(source, '{{ item | slug }}', { params: {} }, { cursor: page.cursor, limit: 5 });
    expect(last).toMatchObject({ items: [{ key: 'globex' }], done: true });
  });

  it('gives a definition without input one item keyed single', async () => {
    await expect(readKeyedItems({ kind: 'single' }, undefined, { params: {} }, { limit: 10 })).resolves.toMatchObject({
      items: [{ key: 'single', value: {} }],
      done: true,
    });
  });
});
