/**
 * DOCX files written the way Word writes them, built in code: paragraphs of runs, each run
 * with its own formatting (`w:rPr`), Word's proofing and revision marks between runs
 * (`w:proofErr`, `w:bookmarkStart`), `xml:space="preserve"` on text with edge spaces, tables
 * with `w:tblPr`/`w:tcPr`. A tag Word split across runs is simply several runs here.
 */
import PizZip from 'pizzip';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A run: its text, and formatting as Word writes it (bold, italic, a font size in half-points). */
export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  size?: number;
  /** Word's spell-check marks around the run, as it leaves them in a saved file. */
  proofErr?: boolean;
}

export type Block = { p: Array<Run | string>; style?: string } | { table: Array<Array<Array<Run | string>>> };

function run(r: Run | string): string {
  const x = typeof r === 'string' ? { text: r } : r;
  const props = [
    x.bold ? '<w:b/><w:bCs/>' : '',
    x.italic ? '<w:i/><w:iCs/>' : '',
    x.size ? `<w:sz w:val="${x.size}"/><w:szCs w:val="${x.size}"/>` : '',
  ].join('');
  const space = /^\s|\s$/.test(x.text) ? ' xml:space="preserve"' : '';
  const body = `<w:r w:rsidR="00A1B2C3"><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/>${props}</w:rPr><w:t${space}>${esc(x.text)}</w:t></w:r>`;
  return x.proofErr ? `<w:proofErr w:type="spellStart"/>${body}<w:proofErr w:type="spellEnd"/>` : body;
}

let bookmark = 0;
function paragraph(runs: Array<Run | string>, style?: string): string {
  const id = bookmark++;
  const pPr = `<w:pPr>${style ? `<w:pStyle w:val="${style}"/>` : ''}<w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr>`;
  return `<w:p w14:paraId="${(0x10000000 + id).toString(16).toUpperCase()}" w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3">${pPr}<w:bookmarkStart w:id="${id}" w:name="_GoBack"/><w:bookmarkEnd w:id="${id}"/>${runs.map(run).join('')}</w:p>`;
}

function table(rows: Array<Array<Array<Run | string>>>): string {
  const cols = rows[0]?.length ?? 1;
  const grid = `<w:tblGrid>${'<w:gridCol w:w="3000"/>'.repeat(cols)}</w:tblGrid>`;
  const tr = (cells: Array<Array<Run | string>>) =>
    `<w:tr w:rsidR="00A1B2C3">${cells.map((c) => `<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>${paragraph(c)}</w:tc>`).join('')}</w:tr>`;
  return `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr>${grid}${rows.map(tr).join('')}</w:tbl>`;
}

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="${W}"><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr></w:rPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:color w:val="2F5496"/><w:sz w:val="32"/></w:rPr></w:style><w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style></w:styles>`;

/** The DOCX of the blocks; `extraRels` adds relationships to word/_rels/document.xml.rels (to test refusals). */
export function wordDocx(
  blocks: Block[],
  opts: { extraRels?: string; extraFiles?: Record<string, string>; contentTypes?: string } = {},
): Buffer {
  const body = blocks.map((b) => ('table' in b ? table(b.table) : paragraph(b.p, b.style))).join('');
  const zip = new PizZip();
  zip.file(
    '[Content_Types].xml',
    opts.contentTypes ??
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  );
  zip.file(
    'word/_rels/document.xml.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>${opts.extraRels ?? ''}</Relationships>`,
  );
  zip.file('word/styles.xml', STYLES);
  for (const [name, content] of Object.entries(opts.extraFiles ?? {})) zip.file(name, content);
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="${W}" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>${body}<w:sectPr w:rsidR="00A1B2C3"><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/><w:cols w:space="708"/></w:sectPr></w:body></w:document>`,
  );
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
