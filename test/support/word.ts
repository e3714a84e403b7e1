/**
 * Word files for the round-trip tests, written the way Word writes them (rsid attributes,
 * runs split mid-word, proofing marks, smart quotes, automatic numbering, a table, simple and
 * complex fields, tracked changes with `w:delText`, a deleted paragraph mark, comments), and
 * the independent reader that settles their tracked changes (./docx_settle.py, python-docx).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { testEnv } from './env';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export interface WordParts {
  /** The children of `w:body`, before its `w:sectPr`. */
  body: string;
  comments?: string;
  /** More `<Relationship>` elements of word/document.xml. */
  relationships?: string;
  /** More `<Override>` or `<Default>` elements of [Content_Types].xml. */
  contentTypes?: string;
  /** The main part's content type (a .docm has another). */
  mainType?: string;
  /** More parts, by name. */
  parts?: Record<string, string | Buffer>;
}

const NUMBERING = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="0" w15:restartNumberingAfterBreak="0" xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml"><w:nsid w:val="1C2A3B4D"/><w:multiLevelType w:val="multilevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="360" w:hanging="360"/></w:pPr></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/><w:lvlJc w:val="left"/></w:lvl><w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/><w:lvlJc w:val="left"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720"/></w:pPr></w:style><w:style w:type="character" w:styleId="CommentReference"><w:name w:val="annotation reference"/></w:style></w:styles>`;

export async function wordFile(parts: WordParts): Promise<Buffer> {
  const zip = new JSZip();
  const main = parts.mainType ?? 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="${main}"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>${parts.comments ? '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>' : ''}${parts.contentTypes ?? ''}</Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  );
  zip.file(
    'word/_rels/document.xml.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>${parts.comments ? '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>' : ''}<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://commonpaper.com/standards" TargetMode="External"/>${parts.relationships ?? ''}</Relationships>`,
  );
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="w14"><w:body>${parts.body}<w:sectPr w:rsidR="00A1B2C3"><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>`,
  );
  zip.file('word/styles.xml', STYLES);
  zip.file('word/numbering.xml', NUMBERING);
  if (parts.comments)
    zip.file(
      'word/comments.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:comments xmlns:w="${W}">${parts.comments}</w:comments>`,
    );
  for (const [name, data] of Object.entries(parts.parts ?? {})) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** Runs as Word splits them: each piece its own run with its own rsid. */
export const runs = (...pieces: string[]) =>
  pieces
    .map(
      (t, i) =>
        `<w:r w:rsidR="00${(0x4a10 + i).toString(16).toUpperCase()}C2"><w:rPr><w:lang w:val="en-US"/></w:rPr><w:t xml:space="preserve">${t}</w:t></w:r>`,
    )
    .join('');
export const ins = (author: string, id: number, text: string) =>
  `<w:ins w:id="${id}" w:author="${author}" w:date="2026-11-20T10:${String(id).padStart(2, '0')}:00Z"><w:r w:rsidR="00B7D1E2"><w:t xml:space="preserve">${text}</w:t></w:r></w:ins>`;
export const del = (author: string, id: number, text: string) =>
  `<w:del w:id="${id}" w:author="${author}" w:date="2026-11-20T10:${String(id).padStart(2, '0')}:00Z"><w:r w:rsidDel="00B7D1E2" w:rsidR="00A1B2C3"><w:delText xml:space="preserve">${text}</w:delText></w:r></w:del>`;
/** A paragraph of Word's automatic numbering (numbering.xml list 1). */
export const numbered = (level: number, content: string) =>
  `<w:p w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3" w14:paraId="1A2B3C4D"><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="1"/></w:numPr></w:pPr>${content}</w:p>`;
export const para = (content: string, pPr = '') =>
  `<w:p w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3">${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${content}</w:p>`;

const run = promisify(execFile);

/** Word's "accept all" and "reject all" of a DOCX, by python-docx: the non-blank paragraphs of each. */
export async function settleWithPythonDocx(bytes: Buffer): Promise<{ accept: string[]; reject: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'word-'));
  try {
    const file = path.join(dir, 'redline.docx');
    await writeFile(file, bytes);
    const root = path.resolve(__dirname, '../..');
    const { stdout } = await run(path.join(root, '.stack/venv-docx/bin/python'), [path.join(__dirname, 'docx_settle.py'), file]);
    return JSON.parse(stdout) as { accept: string[]; reject: string[] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A request whose answer is a file: status, headers and bytes. */
export async function download(token: string, pathname: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${testEnv().baseUrl}${pathname}`, { headers: { ...headers, authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** POST /contracts/:id/versions with a Word file. */
export async function sendWord(
  token: string,
  contractId: string,
  bytes: Buffer,
  fields: Record<string, string> = {},
  name = 'redline.docx',
) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: DOCX_TYPE }), name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${testEnv().baseUrl}/contracts/${contractId}/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, text };
}
