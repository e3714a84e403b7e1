/**
 * A Word file from paragraphs of text: headings as Word's Heading styles, indentation, and
 * tracked insertions and deletions (`w:ins`, `w:del` with author and date, on runs and on
 * paragraph marks) that Word's "accept all" and "reject all" settle. Only the parts Word
 * needs; jszip writes the package.
 */
import JSZip from 'jszip';
import { escapeXml, W_NS } from './ooxml';

export interface RunChange {
  op: 'insert' | 'delete';
  author: string;
  /** ISO 8601. */
  date: string;
}

export interface DocxRun {
  text: string;
  change?: RunChange;
}

export interface DocxParagraph {
  /** 1..6: Word's Heading n style. */
  heading?: number;
  /** Left indent in steps of a quarter inch (numbered sub-clauses). */
  indent?: number;
  runs: DocxRun[];
  /** A tracked change of the paragraph mark: an inserted or deleted paragraph. */
  mark?: RunChange;
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/></Types>`;
const PACKAGE_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const DOCUMENT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/></Relationships>`;
const SETTINGS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:settings xmlns:w="${W_NS}"><w:defaultTabStop w:val="720"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`;

const HEADING_SIZES = [32, 28, 26, 24, 22, 22];
const headingStyle = (n: number) =>
  `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:uiPriority w:val="9"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="${n - 1}"/></w:pPr><w:rPr><w:b/><w:sz w:val="${HEADING_SIZES[n - 1]}"/></w:rPr></w:style>`;
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="${W_NS}"><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/><w:sz w:val="22"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>${[1, 2, 3, 4, 5, 6].map(headingStyle).join('')}</w:styles>`;

/** Word wants ISO 8601 without fractions of a second. */
const wordDate = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

function writer() {
  let id = 0;
  const changeAttrs = (c: RunChange) => `w:id="${++id}" w:author="${escapeXml(c.author)}" w:date="${escapeXml(wordDate(c.date))}"`;
  const runXml = (text: string, deleted: boolean) => {
    const tag = deleted ? 'w:delText' : 'w:t';
    const pieces = text.split('\t').map((t) => (t ? `<${tag} xml:space="preserve">${escapeXml(t)}</${tag}>` : ''));
    return `<w:r>${pieces.join('<w:tab/>')}</w:r>`;
  };
  const run = (r: DocxRun) => {
    if (!r.change) return runXml(r.text, false);
    const tag = r.change.op === 'insert' ? 'w:ins' : 'w:del';
    return `<${tag} ${changeAttrs(r.change)}>${runXml(r.text, r.change.op === 'delete')}</${tag}>`;
  };
  return (p: DocxParagraph) => {
    const props = [
      p.heading ? `<w:pStyle w:val="Heading${Math.min(Math.max(p.heading, 1), 6)}"/>` : '',
      p.indent ? `<w:ind w:left="${360 * p.indent}"/>` : '',
      p.mark ? `<w:rPr><w:${p.mark.op === 'insert' ? 'ins' : 'del'} ${changeAttrs(p.mark)}/></w:rPr>` : '',
    ].join('');
    return `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ''}${p.runs
      .filter((r) => r.text)
      .map(run)
      .join('')}</w:p>`;
  };
}

export async function writeDocx(paragraphs: DocxParagraph[]): Promise<Buffer> {
  const paragraph = writer();
  // A body ends with a paragraph whose mark is never a tracked change (Word cannot remove the last mark).
  const body = [...paragraphs.map(paragraph), '<w:p/>'].join('');
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W_NS}"><w:body>${body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>`;
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', PACKAGE_RELS);
  zip.file('word/document.xml', document);
  zip.file('word/_rels/document.xml.rels', DOCUMENT_RELS);
  zip.file('word/styles.xml', STYLES);
  zip.file('word/settings.xml', SETTINGS);
  return zip.generateAsync({
    type: 'nodebuffer',
    compression: 'DEFLATE',
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  });
}
