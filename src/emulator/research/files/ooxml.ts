import { zip } from './zip';

const REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Escapes text for XML content and attributes, dropping characters XML 1.0 forbids. */
export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** An XML part with the standard declaration. */
export function xmlPart(body: string): string {
  return XML_HEAD + body;
}

/** `[Content_Types].xml` with the given part overrides. */
export function contentTypes(overrides: Record<string, string>): string {
  const entries = Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
    .join('');
  return xmlPart(
    `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${entries}</Types>`,
  );
}

/** A relationships part: `[id, type suffix, target]` triples (type suffix after `.../relationships/`). */
export function relationships(items: readonly (readonly [string, string, string])[]): string {
  const entries = items.map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL_TYPE}/${type}" Target="${target}"/>`).join('');
  return xmlPart(`<Relationships xmlns="${PKG_RELS}">${entries}</Relationships>`);
}

/** A one-sheet Excel workbook of `rows` (numbers as numbers, everything else as inline strings). */
export function xlsx(rows: readonly (readonly (string | number)[])[]): Buffer {
  const sheetRows = rows
    .map((row, rowIndex) => {
      const cells = row
        .map((value, column) => {
          const ref = `${columnName(column)}${rowIndex + 1}`;
          return typeof value === 'number'
            ? `<c r="${ref}"><v>${value}</v></c>`
            : `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlText(value)}</t></is></c>`;
        })
        .join('');
      return `<row r="${rowIndex + 1}">${cells}</row>`;
    })
    .join('');
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  return zip([
    {
      name: '[Content_Types].xml',
      data: contentTypes({
        '/xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
        '/xl/worksheets/sheet1.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml',
      }),
    },
    { name: '_rels/.rels', data: relationships([['rId1', 'officeDocument', 'xl/workbook.xml']]) },
    {
      name: 'xl/workbook.xml',
      data: xmlPart(`<workbook xmlns="${main}" xmlns:r="${REL_TYPE}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    },
    { name: 'xl/_rels/workbook.xml.rels', data: relationships([['rId1', 'worksheet', 'worksheets/sheet1.xml']]) },
    { name: 'xl/worksheets/sheet1.xml', data: xmlPart(`<worksheet xmlns="${main}"><sheetData>${sheetRows}</sheetData></worksheet>`) },
  ]);
}

/** A Word document: the first paragraph as a title, the rest as body paragraphs (`# ` lines bold). */
export function docx(title: string, paragraphs: readonly string[]): Buffer {
  const w = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const paragraph = (text: string, bold: boolean, size?: number): string => {
    const props = bold || size ? `<w:rPr>${bold ? '<w:b/>' : ''}${size ? `<w:sz w:val="${size}"/>` : ''}</w:rPr>` : '';
    return `<w:p><w:r>${props}<w:t xml:space="preserve">${xmlText(text)}</w:t></w:r></w:p>`;
  };
  const body = [
    paragraph(title, true, 36),
    ...paragraphs.map((text) => {
      const heading = /^#+\s+/.exec(text);
      return heading ? paragraph(text.slice(heading[0].length), true, 28) : paragraph(text, false);
    }),
  ].join('');
  return zip([
    {
      name: '[Content_Types].xml',
      data: contentTypes({
        '/word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
      }),
    },
    { name: '_rels/.rels', data: relationships([['rId1', 'officeDocument', 'word/document.xml']]) },
    {
      name: 'word/document.xml',
      data: xmlPart(`<w:document xmlns:w="${w}"><w:body>${body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`),
    },
  ]);
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
