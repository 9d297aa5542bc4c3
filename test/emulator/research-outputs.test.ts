import { crc32, inflateSync } from 'node:zlib';
import { z } from 'zod';
import { task as taskSchema, type Task } from '../../src/api/schemas';
import { asRecord, minutes, type ResearchHarness, startResearchHarness, textField } from '../support/research-harness';

const QUERY = 'Competitive landscape of heat pump makers, in Europe';

/** Names and contents of the entries of a stored ZIP, checked against an independent CRC-32. */
function unzipStored(bytes: Buffer): Map<string, string> {
  const entries = new Map<string, string>();
  let offset = 0;
  while (bytes.readUInt32LE(offset) === 0x04034b50) {
    const crc = bytes.readUInt32LE(offset + 14);
    const size = bytes.readUInt32LE(offset + 18);
    const nameLength = bytes.readUInt16LE(offset + 26);
    const extraLength = bytes.readUInt16LE(offset + 28);
    const name = bytes.toString('utf8', offset + 30, offset + 30 + nameLength);
    const start = offset + 30 + nameLength + extraLength;
    const data = bytes.subarray(start, start + size);
    expect(crc32(data)).toBe(crc);
    entries.set(name, data.toString('utf8'));
    offset = start + size;
  }
  expect(bytes.readUInt32LE(offset)).toBe(0x02014b50);
  return entries;
}

/** Checks a PDF's cross-reference table: every offset points at its object. */
function checkPdf(bytes: Buffer): void {
  const text = bytes.toString('latin1');
  expect(text.startsWith('%PDF-1.')).toBe(true);
  expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
  const startxref = Number(/startxref\n(\d+)/.exec(text)?.[1]);
  expect(text.slice(startxref, startxref + 4)).toBe('xref');
  const offsets = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((match) => Number(match[1]));
  expect(offsets.length).toBeGreaterThan(3);
  offsets.forEach((at, index) => expect(text.slice(at).startsWith(`${index + 1} 0 obj`)).toBe(true));
}

/** Checks a PNG's chunk CRCs and that its pixel data inflates to the declared size. */
function checkPng(bytes: Buffer): void {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    expect(crc32(bytes.subarray(offset + 4, offset + 8 + length))).toBe(bytes.readUInt32BE(offset + 8 + length));
    if (type === 'IHDR') [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(inflateSync(Buffer.concat(idat)).length).toBe((width * 3 + 1) * height);
}

/** A minimal RFC 4180 reader, enough to check the emulator's quoting. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index++;
    } else field += char;
  }
  return rows;
}

describe('DeepResearch outputs and assets', () => {
  let h: ResearchHarness;
  afterEach(async () => h.close());

  async function completed(request: Parameters<ResearchHarness['client']['createTask']>[0]): Promise<Task> {
    const { deepresearch_id: id } = await h.client.createTask({ mode: 'fast', ...request });
    await h.advance(minutes(3));
    const task = await h.client.getTask(id);
    expect(task.status).toBe('completed');
    return task;
  }

  test('a JSON Schema output format gives a JSON object of that shape', async () => {
    h = await startResearchHarness();
    const schema = {
      type: 'object',
      properties: {
        summary: { type: 'string' },
        market_size_usd: { type: 'number', minimum: 1000, maximum: 5000 },
        companies: {
          type: 'array',
          minItems: 4,
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              founded: { type: 'integer', minimum: 1900, maximum: 2024 },
              tier: { enum: ['leader', 'challenger'] },
              website: { type: 'string', format: 'uri' },
            },
          },
        },
        as_of: { type: 'string', format: 'date' },
        public: { type: 'boolean' },
      },
      required: ['summary', 'companies'],
    };
    const task = await completed({ query: QUERY, output_formats: [schema] });
    expect(task.output_type).toBe('json');
    const output = asRecord(task.output);
    expect(typeof output.summary).toBe('string');
    expect(output.market_size_usd).toEqual(expect.any(Number));
    expect(Number(output.market_size_usd)).toBeGreaterThanOrEqual(1000);
    expect(Number(output.market_size_usd)).toBeLessThanOrEqual(5000);
    expect(output.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(typeof output.public).toBe('boolean');
    const companies = z.array(z.record(z.string(), z.unknown())).parse(output.companies);
    expect(companies.length).toBe(4);
    for (const company of companies) {
      expect(Number.isInteger(company.founded)).toBe(true);
      expect(['leader', 'challenger']).toContain(company.tier);
      expect(String(company.website)).toMatch(/^https:\/\//);
    }
  });

  test('toon output is TOON text with tabular findings and sources', async () => {
    h = await startResearchHarness();
    const task = await completed({ query: QUERY, output_formats: ['toon'] });
    expect(task.output_type).toBe('toon');
    expect(String(task.output)).toMatch(/^title: /);
    expect(String(task.output)).toMatch(/\nfindings\[3\]\{id,heading,text,citations\}:\n {2}1,/);
    expect(String(task.output)).toMatch(/\nsources\[6\]\{id,title,url,date\}:/);
  });

  test('a pdf format gives a pdf_url serving a valid PDF', async () => {
    h = await startResearchHarness();
    const task = await completed({ query: QUERY, output_formats: ['markdown', 'pdf'] });
    expect(task.output_type).toBe('markdown');
    const pdf = await h.download(String(task.pdf_url));
    expect(pdf.status).toBe(200);
    expect(pdf.contentType).toBe('application/pdf');
    checkPdf(pdf.bytes);
  });

  test('images are real PNG files', async () => {
    h = await startResearchHarness();
    const task = await completed({ query: QUERY, tools: { charts: true, screenshots: true } });
    expect(task.images?.map((image) => image.image_type)).toEqual(['chart', 'chart', 'screenshot']);
    for (const image of task.images ?? []) {
      const png = await h.download(image.image_url);
      expect(png.contentType).toBe('image/png');
      checkPng(png.bytes);
    }
  });

  test('deliverables are downloadable files of the requested types with matching sizes', async () => {
    h = await startResearchHarness();
    const task = await completed({
      query: QUERY,
      deliverables: [
        'A CSV table of the main makers',
        { type: 'excel', description: 'Spreadsheet of market shares' },
        { type: 'docx', description: 'A two-page memo' },
        'A slide deck for the board',
        { type: 'pdf', description: 'Printable brief' },
      ],
    });
    const files = task.deliverables ?? [];
    expect(files.map((file) => file.request)).toEqual([
      'A CSV table of the main makers',
      'Spreadsheet of market shares',
      'A two-page memo',
      'A slide deck for the board',
      'Printable brief',
    ]);
    expect(files.every((file) => typeof file.created_at === 'number')).toBe(true);
    expect(files.map((file) => [file.id, file.type, file.status])).toEqual([
      ['deliverable-1', 'csv', 'completed'],
      ['deliverable-2', 'xlsx', 'completed'],
      ['deliverable-3', 'docx', 'completed'],
      ['deliverable-4', 'pptx', 'completed'],
      ['deliverable-5', 'pdf', 'completed'],
    ]);
    const bytes = await Promise.all(
      files.map(async (file) => {
        const download = await h.download(String(file.url));
        expect(download.status).toBe(200);
        expect(download.bytes.length).toBeGreaterThan(0);
        expect(file.title).toMatch(new RegExp(`\\.${file.type}$`));
        return download;
      }),
    );
    const [csv, xlsx, docx, pptx, pdf] = bytes;
    expect(csv!.contentType).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(csv!.bytes.toString('utf8'));
    expect(rows[0]).toEqual(['#', 'Finding', 'Detail', 'Source', 'URL', 'Published']);
    expect(rows.length).toBe(4);
    expect(rows.every((row) => row.length === 6)).toBe(true);
    expect(rows[1]![2]).toContain(', and the figures');
    expect(xlsx!.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = unzipStored(xlsx!.bytes);
    expect([...workbook.keys()]).toEqual(expect.arrayContaining(['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/worksheets/sheet1.xml']));
    expect(workbook.get('xl/worksheets/sheet1.xml')).toContain('<t xml:space="preserve">Finding</t>');
    expect(unzipStored(docx!.bytes).get('word/document.xml')).toContain('A two-page memo');
    const deck = unzipStored(pptx!.bytes);
    expect([...deck.keys()]).toEqual(
      expect.arrayContaining(['ppt/presentation.xml', 'ppt/slideMasters/slideMaster1.xml', 'ppt/theme/theme1.xml', 'ppt/slides/slide4.xml']),
    );
    checkPdf(pdf!.bytes);
  });

  test('an unsupported deliverable type is refused with 400 naming the entry', async () => {
    h = await startResearchHarness();
    const refused = await h.call('POST', '/deepresearch/tasks', { query: QUERY, deliverables: [{ type: 'mp4', description: 'A video' }] });
    expect(refused.status).toBe(400);
    expect(textField(refused.json, 'error')).toContain('deliverables[0].type: must be one of csv, xlsx, docx, pptx, pdf');
  });

  test('assets need the owner, a public task, or the link token; unfinished tasks have none', async () => {
    h = await startResearchHarness(
      {},
      {
        accounts: [
          { key: 'key_owner_org', creditsUsd: 10 },
          { key: 'key_other_org', creditsUsd: 10 },
        ],
      },
    );
    const created = await h.call('POST', '/deepresearch/tasks', { query: QUERY, mode: 'fast' }, 'key_owner_org');
    const id = textField(created.json, 'deepresearch_id');
    const early = await h.call('GET', `/deepresearch/tasks/${id}/assets/image-1`, undefined, 'key_owner_org');
    expect(early.status).toBe(404);
    expect(textField(early.json, 'error')).toMatch(/the task is running/);
    await h.advance(minutes(3));
    const task = taskSchema.parse((await h.call('GET', `/deepresearch/tasks/${id}`, undefined, 'key_owner_org')).json);
    const url = String(task.images?.[0]?.image_url);
    expect((await h.download(url, 'key_other_org')).status).toBe(200);
    const withoutToken = url.replace(/\?token=.*$/, '');
    expect((await h.download(withoutToken, 'key_owner_org')).status).toBe(200);
    expect((await h.download(withoutToken, 'key_other_org')).status).toBe(404);
    expect((await h.download(`${withoutToken}?token=wrong`, 'key_other_org')).status).toBe(403);
    expect((await h.download(withoutToken.replace('image-1', 'image-9'), 'key_owner_org')).status).toBe(404);
    await h.call('POST', `/deepresearch/tasks/${id}/public`, { public: true }, 'key_owner_org');
    expect((await h.download(withoutToken, 'key_other_org')).status).toBe(200);
  });

  test('the cost is the mode price plus tool surcharges, and is exactly what was charged', async () => {
    h = await startResearchHarness();
    const account = h.emulator.accounts.all()[0]!;
    const before = account.creditsUsd;
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'standard', tools: { charts: true, browser_use: true } });
    expect(before - account.creditsUsd).toBeCloseTo(0.75, 6);
    await h.advance(minutes(15));
    const task = await h.client.getTask(id);
    expect(task.cost).toBe(0.75);
    expect(task.cost_breakdown).toEqual({ task: 0.5, browser_use: 0.2, charts: 0.05 });
    expect(task.tools).toEqual({ code_execution: false, screenshots: false, browser_use: true, charts: true });
  });

  test('a workflow run resolves its template and runs the resolved configuration', async () => {
    h = await startResearchHarness();
    const created = await h.client.createTask({ workflow_id: 'company-profile', workflow_params: { company: 'Acme Heat' }, workflow_version: 1 });
    expect(created.mode).toBe('standard');
    await h.advance(minutes(15));
    const task = await h.client.getTask(created.deepresearch_id);
    expect(task).toMatchObject({ status: 'completed', query: 'Write a company profile of Acme Heat.', workflow_id: 'company-profile', workflow_version: 1 });
    expect(String(task.output)).toContain('Report format requested: Sections: overview, products');
  });

  test('an unknown workflow is refused in the workflow error form and charges nothing', async () => {
    h = await startResearchHarness();
    const before = h.emulator.accounts.all()[0]!.creditsUsd;
    const refused = await h.call('POST', '/deepresearch/tasks', { workflow_id: 'no-such-workflow' });
    expect(refused.status).toBe(404);
    expect(refused.json).toMatchObject({ error: 'workflow_not_found', message: expect.any(String) });
    expect(h.emulator.accounts.all()[0]!.creditsUsd).toBe(before);
  });
});
