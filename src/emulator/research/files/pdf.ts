const LINES_PER_PAGE = 54;
const WRAP_AT = 95;

/** A valid PDF (1.4, Helvetica, US Letter) of plain text lines, paginated; non-Latin text is transliterated to `?`. */
export function textPdf(title: string, text: string): Buffer {
  const lines = [title, '', ...text.split('\n').flatMap(wrap)];
  const pages: string[][] = [];
  for (let index = 0; index < lines.length; index += LINES_PER_PAGE) pages.push(lines.slice(index, index + LINES_PER_PAGE));
  if (pages.length === 0) pages.push(['']);
  const objects: string[] = [];
  const pageIds = pages.map((_, index) => 4 + index * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((pageLines, index) => {
    const pageId = pageIds[index]!;
    const body = ['BT', '/F1 10 Tf', '13 TL', '50 750 Td', ...pageLines.map((line) => `(${escape(line)}) '`), 'ET'].join('\n');
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${Buffer.byteLength(body, 'latin1')} >>\nstream\n${body}\nendstream`;
  });
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function wrap(line: string): string[] {
  if (line.length <= WRAP_AT) return [line];
  const parts: string[] = [];
  let rest = line;
  while (rest.length > WRAP_AT) {
    const cut = rest.lastIndexOf(' ', WRAP_AT) > 20 ? rest.lastIndexOf(' ', WRAP_AT) : WRAP_AT;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  parts.push(rest);
  return parts;
}

function escape(line: string): string {
  return line.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (char) => `\\${char}`);
}
