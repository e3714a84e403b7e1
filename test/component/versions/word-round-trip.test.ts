/**
 * The Word round trip through the API: a version exported as a Word file, a counterparty's
 * Word file with tracked changes and comments (written the way Word writes them) taken back
 * as a version, the redline as a Word file whose "accept all" and "reject all" are checked by
 * an independent reader (python-docx, test/support/docx_settle.py), Word's real files (the
 * eval corpus), and hostile files refused.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import JSZip from 'jszip';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { docxWithBody, oneLetterParagraphs } from '../../support/bombs';
import { makePdf } from '../../support/documents';
import { del, DOCX_TYPE, download, ins, numbered, para, runs, sendWord, settleWithPythonDocx, wordFile } from '../../support/word';

interface Part {
  op: 'equal' | 'insert' | 'delete';
  text: string;
  author?: string | null;
  date?: string | null;
}
interface Paragraph {
  op: 'equal' | 'insert' | 'delete' | 'change';
  text?: string;
  parts?: Part[];
  author?: string | null;
}
interface Version {
  number: number;
  content: string;
  from_word: boolean;
  tracked_changes: Array<{ op: string; text: string; author: string | null; date: string | null }>;
  comments: Array<{ number: number; author: string | null; date: string | null; text: string; anchor: string }>;
}

const DANA = 'Dana Counsel';
const LEE = 'Lee Reviewer';

/** What we send: numbered clauses (typed in the text), a heading, a tab-separated table row, a smart quote. */
const V1 = [
  '# Master Services Agreement',
  '1. Fees',
  'The Customer shall pay the fees within thirty days of each invoice.',
  '2. Liability',
  'Each party’s liability will not exceed the fees paid in the 12 months before the claim.',
  '3. Assignment',
  'Either party may assign this Agreement with consent.',
  'Governing law\tthe laws of the State of New York.',
].join('\n');

/** What the counterparty's Word file reads as, all its changes accepted. */
const V2 = [
  '# Master Services Agreement',
  '1. Fees',
  'The Customer shall pay the fees within sixty days of each undisputed invoice.',
  '2. Liability',
  'Each party’s liability will not exceed the fees paid in the 12 months before the claim.',
  '3. Assignment',
  'Governing law\tthe laws of the State of New York.',
  'Notices must be given in writing as in Section 2.',
].join('\n');

/**
 * V1 back from the counterparty, as Word writes it: automatic numbering for the clause
 * titles, runs split mid-word with rsids and proofing marks, a simple field holding "12", a
 * table, a deleted paragraph (its mark too), an inserted paragraph with a cross-reference
 * field, and a comment on "sixty".
 */
async function counterpartyRedline(): Promise<Buffer> {
  const body = [
    para(runs('Master Serv', 'ices ', 'Agreement'), '<w:pStyle w:val="Heading1"/>'),
    numbered(0, runs('Fees')),
    para(
      runs('The Customer shall pay the fees with', 'in ') +
        '<w:proofErr w:type="spellStart"/>' +
        del(DANA, 1, 'thirty') +
        '<w:proofErr w:type="spellEnd"/>' +
        '<w:commentRangeStart w:id="0"/>' +
        ins(DANA, 2, 'sixty') +
        '<w:commentRangeEnd w:id="0"/><w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr><w:commentReference w:id="0"/></w:r>' +
        runs(' days of each ') +
        ins(DANA, 3, 'undisputed ') +
        runs('invoice.'),
    ),
    numbered(0, runs('Liab', 'ility')),
    para(
      runs('Each party’s liability will not exceed the fees paid in the ') +
        '<w:fldSimple w:instr=" DOCPROPERTY CapMonths \\* MERGEFORMAT "><w:r><w:t>12</w:t></w:r></w:fldSimple>' +
        runs(' months before the claim.'),
    ),
    numbered(0, runs('Assignment')),
    para(
      del(DANA, 4, 'Either party may assign this Agreement with consent.'),
      `<w:rPr><w:del w:id="5" w:author="${DANA}" w:date="2026-11-20T10:05:00Z"/></w:rPr>`,
    ),
    '<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="6000"/></w:tblGrid><w:tr w:rsidR="00A1B2C3">' +
      `<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>${para(runs('Governing ', 'law'))}</w:tc>` +
      `<w:tc><w:tcPr><w:tcW w:w="6000" w:type="dxa"/></w:tcPr>${para(runs('the laws of the State of New ', 'York.'))}</w:tc></w:tr></w:tbl>`,
    para(
      ins(LEE, 6, 'Notices must be given in writing as in ') +
        `<w:ins w:id="7" w:author="${LEE}" w:date="2026-11-21T09:00:00Z"><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> REF _Ref123 \\r \\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Section 2</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:ins>` +
        ins(LEE, 8, '.'),
      `<w:rPr><w:ins w:id="9" w:author="${LEE}" w:date="2026-11-21T09:00:00Z"/></w:rPr>`,
    ),
  ].join('');
  const comments = `<w:comment w:id="0" w:author="${DANA}" w:date="2026-11-20T10:02:00Z" w:initials="DC"><w:p><w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr><w:annotationRef/></w:r><w:r><w:t>Our standard is “sixty” days.</w:t></w:r></w:p></w:comment>`;
  return wordFile({ body, comments });
}

const lines = (text: string) => text.split('\n');

async function newContract(u: TestUser, content: string): Promise<string> {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'MSA Northwind', type: 'service_agreement', counterparty: 'Northwind', content },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

async function versionCount(u: TestUser, id: string): Promise<number> {
  const res = await api<{ total: number }>('GET', `/contracts/${id}/versions`, { token: u.token });
  return res.body.total;
}

describe('Word round trip (versions as DOCX)', function () {
  this.timeout(120_000);
  let owner: TestUser;

  before(async () => {
    owner = await signUp();
  });

  it('exports a version as a Word file with its paragraphs, headings and numbered clauses', async () => {
    const id = await newContract(owner, V1);
    const res = await download(owner.token, `/contracts/${id}/versions/1/document.docx`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain(DOCX_TYPE);
    expect(res.headers.get('content-disposition')).to.contain('MSA Northwind v1.docx');
    // python-docx reads it: the heading is Word's Heading 1, every other line a paragraph.
    const read = await settleWithPythonDocx(res.bytes);
    expect(read.accept).to.deep.equal(lines(V1));
    const xml = await (await JSZip.loadAsync(res.bytes)).file('word/document.xml')!.async('string');
    expect(xml).to.contain('<w:pStyle w:val="Heading1"/>');
    expect(xml).to.contain('<w:tab/>');
    // The exported file read back is the same text (the round trip keeps it).
    const back = await sendWord(owner.token, id, res.bytes);
    expect(back.status, back.text).to.equal(201);
    expect((back.body as unknown as Version).content).to.equal(V1);
  });

  it('takes a counterparty Word file with tracked changes and comments as a new version, its authors shown in the redline', async () => {
    const id = await newContract(owner, V1);
    const file = await counterpartyRedline();
    const res = await sendWord(owner.token, id, file, { version_note: 'Northwind markup' });
    expect(res.status, res.text).to.equal(201);
    const v = res.body as unknown as Version;
    expect(v.number).to.equal(2);
    expect(v.from_word).to.equal(true);
    expect(v.content).to.equal(V2);
    expect(v.comments).to.deep.equal([
      { number: 0, author: DANA, date: '2026-11-20T10:02:00Z', text: 'Our standard is “sixty” days.', anchor: 'sixty' },
    ]);
    const changes = v.tracked_changes.map((c) => `${c.op}:${c.author}:${c.text}`);
    expect(changes).to.include.members([
      `delete:${DANA}:thirty`,
      `insert:${DANA}:sixty`,
      `insert:${DANA}:undisputed `,
      `delete:${DANA}:Either party may assign this Agreement with consent.`,
    ]);
    expect(changes.filter((c) => c.startsWith(`insert:${LEE}:`)).join('|')).to.contain('Notices must be given in writing as in');

    // The contract's text of record is the accepted text; the version is listed with its comments.
    const contract = await api<{ content: string }>('GET', `/contracts/${id}`, { token: owner.token });
    expect(contract.body.content).to.equal(V2);
    const got = await api<Version>('GET', `/contracts/${id}/versions/2`, { token: owner.token });
    expect(got.body.comments).to.have.length(1);

    // The redline shows each change as its Word author's.
    const diff = await api<{ paragraphs: Paragraph[] }>('GET', `/contracts/${id}/versions/1/diff/2`, { token: owner.token });
    expect(diff.status, diff.text).to.equal(200);
    const fees = diff.body.paragraphs.find((p) => p.op === 'change' && p.parts!.some((x) => x.text.includes('sixty')))!;
    expect(fees.parts!.filter((x) => x.op !== 'equal').map((x) => [x.op, x.text.trim(), x.author])).to.deep.equal([
      ['delete', 'thirty', DANA],
      ['insert', 'sixty', DANA],
      ['insert', 'undisputed', DANA],
    ]);
    expect(diff.body.paragraphs.find((p) => p.op === 'delete')).to.include({ author: DANA });
    expect(diff.body.paragraphs.find((p) => p.op === 'insert')).to.include({ author: LEE });

    // The version's Word file is the one received, byte for byte.
    const exported = await download(owner.token, `/contracts/${id}/versions/2/document.docx`);
    expect(exported.status).to.equal(200);
    expect(createHash('sha256').update(exported.bytes).digest('hex')).to.equal(createHash('sha256').update(file).digest('hex'));
  });

  it('gives the redline as a Word file whose "accept all" is version b and "reject all" version a (python-docx)', async () => {
    const id = await newContract(owner, V1);
    expect((await sendWord(owner.token, id, await counterpartyRedline())).status).to.equal(201);
    // A third version typed in: headings changed, clauses moved, inserted and deleted.
    const v3 = [
      '# Master Services Agreement (Northwind)',
      '1. Fees',
      'The Customer shall pay the fees within sixty days of each undisputed invoice, in euros.',
      'Governing law\tthe laws of England and Wales.',
      '# Schedule 1',
      '2. Liability',
      'Liability is uncapped.',
      'Notices must be given in writing as in Section 2.',
    ].join('\n');
    const patch = await api('PUT', `/contracts/${id}`, { token: owner.token, body: { content: v3 } });
    expect(patch.status, patch.text).to.equal(200);

    for (const [a, b, from, to] of [
      [1, 2, V1, V2],
      [2, 3, V2, v3],
      [1, 3, V1, v3],
      [3, 1, v3, V1],
    ] as const) {
      const res = await download(owner.token, `/contracts/${id}/versions/${a}/diff/${b}`, { accept: DOCX_TYPE });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.contain(DOCX_TYPE);
      const settled = await settleWithPythonDocx(res.bytes);
      expect(settled.accept, `accept all of ${a}→${b}`).to.deep.equal(lines(to));
      expect(settled.reject, `reject all of ${a}→${b}`).to.deep.equal(lines(from));
    }
    // The Word file's changes carry their Word authors; the typed-in edit its editor's name.
    const word = await download(owner.token, `/contracts/${id}/versions/1/diff/2`, { accept: DOCX_TYPE });
    const xml = await (await JSZip.loadAsync(word.bytes)).file('word/document.xml')!.async('string');
    expect(xml).to.match(
      new RegExp(`<w:del w:id="\\d+" w:author="${DANA}" w:date="2026-11-20T10:01:00Z"><w:r><w:delText xml:space="preserve">thirty`),
    );
    expect(xml).to.contain(`w:author="${LEE}"`);
    // JSON stays the default.
    const json = await api('GET', `/contracts/${id}/versions/2/diff/3`, { token: owner.token });
    expect(json.headers.get('content-type')).to.contain('application/json');
  });

  it('reads the eight corpus agreements (real Word files) into sane text', async function () {
    // Eight imports one after another: generous on a machine shared by many test runs.
    this.timeout(600_000);
    const dir = path.resolve(__dirname, '../../../eval/corpus');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.docx'));
    expect(files).to.have.length(8);
    const id = await newContract(owner, 'placeholder');
    for (const name of files) {
      const bytes = await readFile(path.join(dir, name));
      const res = await sendWord(owner.token, id, bytes, {}, name);
      expect(res.status, `${name}: ${res.text}`).to.equal(201);
      const text = (res.body as unknown as Version).content;
      const title = name.replace(/^common-paper-|\.docx$/g, '').split('-')[0]!;
      expect(text.slice(0, 200).toLowerCase(), name).to.contain(title);
      expect(text.length, name).to.be.greaterThan(5000);
      // No markup, no replacement characters, no symbol-font private-use characters.
      expect(text, name).not.to.match(/<w:|\uFFFD|[\uF000-\uF0FF]/);
      // Word's automatic numbering gives clause numbers ("1.1 ...") where the file numbers its clauses.
      if (!/order-form|design-partner/.test(name)) expect(text, name).to.match(/^(#+ )?\d+\.\d+ \S/m);
    }
  });

  describe('hostile Word files are refused and leave no version', () => {
    let id: string;
    before(async () => {
      id = await newContract(owner, V1);
    });

    const refuse = async (bytes: Buffer, status: number, detail: RegExp) => {
      const before = await versionCount(owner, id);
      const res = await sendWord(owner.token, id, bytes);
      expect(res.status, res.text).to.equal(status);
      expect(res.body.detail).to.match(detail);
      expect(await versionCount(owner, id)).to.equal(before);
    };

    it('a ZIP bomb (400)', async () => {
      await refuse(await docxWithBody(oneLetterParagraphs(60 * 1024 * 1024)), 400, /expands|decompression bomb/);
    });

    it('an external relationship: a linked image on an attacker host (400)', async () => {
      const file = await wordFile({
        body: para(runs('Pay within sixty days.')),
        relationships:
          '<Relationship Id="rId20" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="http://attacker.example/pixel.png" TargetMode="External"/>',
      });
      await refuse(file, 400, /external relationship \(image to http:\/\/attacker\.example\/pixel\.png/);
    });

    it('a macro-enabled file: a .docm, and a .docx carrying a VBA project (415)', async () => {
      const docm = await wordFile({
        body: para(runs('Pay within sixty days.')),
        mainType: 'application/vnd.ms-word.document.macroEnabled.main+xml',
        contentTypes: '<Override PartName="/word/vbaProject.bin" ContentType="application/vnd.ms-office.vbaProject"/>',
        parts: { 'word/vbaProject.bin': Buffer.from('Attribute VB_Name = "ThisDocument"\nSub AutoOpen()\nEnd Sub\n') },
      });
      await refuse(docm, 415, /Word document|macro-enabled/);
      const hidden = await wordFile({
        body: para(runs('Pay within sixty days.')),
        parts: { 'word/vbaProject.bin': Buffer.from('Sub AutoOpen()\nEnd Sub\n') },
      });
      await refuse(hidden, 415, /macro-enabled document \(it holds word\/vbaProject\.bin\)/);
    });

    it('a file that is not a Word document (415), and broken XML (400)', async () => {
      await refuse(await makePdf([['Pay within sixty days.']]), 415, /must be a Word document/);
      await refuse(await wordFile({ body: '<w:p><w:r><w:t>unclosed</w:r></w:p>' }), 400, /not well-formed XML/);
    });
  });
});
