import { contentTypes, relationships, xmlPart, xmlText } from './ooxml';
import { zip } from './zip';

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const EMPTY_TREE = '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>';
const CT = 'application/vnd.openxmlformats-officedocument';

/** One slide: a title and bullet lines. */
export interface Slide {
  title: string;
  bullets: readonly string[];
}

/** A PowerPoint deck (one master, one layout, one theme, the smallest set PowerPoint requires) of text slides. */
export function pptx(slides: readonly Slide[]): Buffer {
  const slideParts = slides.flatMap((slide, index) => [
    { name: `ppt/slides/slide${index + 1}.xml`, data: slideXml(slide) },
    { name: `ppt/slides/_rels/slide${index + 1}.xml.rels`, data: relationships([['rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml']]) },
  ]);
  const slideIds = slides.map((_, index) => `<p:sldId id="${256 + index}" r:id="rId${index + 2}"/>`).join('');
  const overrides: Record<string, string> = {
    '/ppt/presentation.xml': `${CT}.presentationml.presentation.main+xml`,
    '/ppt/slideMasters/slideMaster1.xml': `${CT}.presentationml.slideMaster+xml`,
    '/ppt/slideLayouts/slideLayout1.xml': `${CT}.presentationml.slideLayout+xml`,
    '/ppt/theme/theme1.xml': `${CT}.theme+xml`,
  };
  slides.forEach((_, index) => {
    overrides[`/ppt/slides/slide${index + 1}.xml`] = `${CT}.presentationml.slide+xml`;
  });
  return zip([
    { name: '[Content_Types].xml', data: contentTypes(overrides) },
    { name: '_rels/.rels', data: relationships([['rId1', 'officeDocument', 'ppt/presentation.xml']]) },
    {
      name: 'ppt/presentation.xml',
      data: xmlPart(
        `<p:presentation ${NS}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst>${slideIds}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`,
      ),
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: relationships([
        ['rId1', 'slideMaster', 'slideMasters/slideMaster1.xml'],
        ...slides.map((_, index) => [`rId${index + 2}`, 'slide', `slides/slide${index + 1}.xml`] as const),
        [`rId${slides.length + 2}`, 'theme', 'theme/theme1.xml'],
      ]),
    },
    {
      name: 'ppt/slideMasters/slideMaster1.xml',
      data: xmlPart(
        `<p:sldMaster ${NS}><p:cSld><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>`,
      ),
    },
    {
      name: 'ppt/slideMasters/_rels/slideMaster1.xml.rels',
      data: relationships([
        ['rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'],
        ['rId2', 'theme', '../theme/theme1.xml'],
      ]),
    },
    {
      name: 'ppt/slideLayouts/slideLayout1.xml',
      data: xmlPart(
        `<p:sldLayout ${NS} type="blank"><p:cSld name="Blank"><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`,
      ),
    },
    { name: 'ppt/slideLayouts/_rels/slideLayout1.xml.rels', data: relationships([['rId1', 'slideMaster', '../slideMasters/slideMaster1.xml']]) },
    { name: 'ppt/theme/theme1.xml', data: themeXml() },
    ...slideParts,
  ]);
}

function textBox(id: number, name: string, y: number, height: number, paragraphs: readonly string[], size: number): string {
  const body = paragraphs.map((text) => `<a:p><a:r><a:rPr lang="en-US" sz="${size}"/><a:t>${xmlText(text)}</a:t></a:r></a:p>`).join('') || '<a:p/>';
  return `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="${y}"/><a:ext cx="8229600" cy="${height}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr wrap="square"/><a:lstStyle/>${body}</p:txBody></p:sp>`;
}

function slideXml(slide: Slide): string {
  const shapes =
    textBox(2, 'Title', 457200, 1143000, [slide.title], 3200) +
    textBox(
      3,
      'Body',
      1828800,
      4572000,
      slide.bullets.map((line) => `- ${line}`),
      1800,
    );
  return xmlPart(`<p:sld ${NS}><p:cSld><p:spTree>${EMPTY_TREE}${shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`);
}

function themeXml(): string {
  const colour = (name: string, hex: string): string => `<a:${name}><a:srgbClr val="${hex}"/></a:${name}>`;
  const colours = [
    ['dk1', '000000'],
    ['lt1', 'FFFFFF'],
    ['dk2', '1F497D'],
    ['lt2', 'EEECE1'],
    ['accent1', '4F81BD'],
    ['accent2', 'C0504D'],
    ['accent3', '9BBB59'],
    ['accent4', '8064A2'],
    ['accent5', '4BACC6'],
    ['accent6', 'F79646'],
    ['hlink', '0000FF'],
    ['folHlink', '800080'],
  ]
    .map(([name, hex]) => colour(name!, hex!))
    .join('');
  const font = '<a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/>';
  const fill = '<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>';
  const line = `<a:ln w="9525">${fill}</a:ln>`;
  const effect = '<a:effectStyle><a:effectLst/></a:effectStyle>';
  return xmlPart(
    `<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Emulator"><a:themeElements><a:clrScheme name="Emulator">${colours}</a:clrScheme><a:fontScheme name="Emulator"><a:majorFont>${font}</a:majorFont><a:minorFont>${font}</a:minorFont></a:fontScheme><a:fmtScheme name="Emulator"><a:fillStyleLst>${fill.repeat(3)}</a:fillStyleLst><a:lnStyleLst>${line.repeat(3)}</a:lnStyleLst><a:effectStyleLst>${effect.repeat(3)}</a:effectStyleLst><a:bgFillStyleLst>${fill.repeat(3)}</a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>`,
  );
}
