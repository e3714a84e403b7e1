/** The DOCX reader and writer alone: numbering labels, tracked changes both ways, what a package may hold. */
import { expect } from 'chai';
import JSZip from 'jszip';
import { readDocx } from '../../../platform/docx/read-docx';
import { dropAttachedTemplate, refusalOf } from '../../../platform/docx/docx-package';
import { writeDocx } from '../../../platform/docx/write-docx';
import { redlineTexts } from '../../../services/contracts/redline';
import { redlineParagraphs, textParagraphs } from '../../../services/contracts/word-text';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

async function docx(body: string, numbering?: string): Promise<JSZip> {
  const zip = new JSZip();
  zip.file('word/document.xml', `<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`);
  if (numbering) zip.file('word/numbering.xml', `<w:numbering xmlns:w="${W}">${numbering}</w:numbering>`);
  return JSZip.loadAsync(await zip.generateAsync({ type: 'nodebuffer' }));
}

const level = (ilvl: number, format: string, text: string, start = 1) =>
  `<w:lvl w:ilvl="${ilvl}"><w:start w:val="${start}"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${text}"/></w:lvl>`;
const item = (ilvl: number, text: string, numId = 1) =>
  `<w:p><w:pPr><w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;

describe('DOCX reader', () => {
  it('labels automatic numbering as Word shows it, deeper levels restarting under a new parent', async () => {
    const numbering =
      `<w:abstractNum w:abstractNumId="7">${level(0, 'decimal', '%1.')}${level(1, 'decimal', '%1.%2')}${level(2, 'lowerLetter', '(%3)')}${level(3, 'lowerRoman', '(%4)')}${level(4, 'upperRoman', '%5', 4)}</w:abstractNum>` +
      `<w:abstractNum w:abstractNumId="8">${level(0, 'bullet', '\uF0B7')}</w:abstractNum>` +
      '<w:num w:numId="1"><w:abstractNumId w:val="7"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="8"/></w:num>';
    const body = [
      item(0, 'Fees'),
      item(1, 'Invoices'),
      item(1, 'Taxes'),
      item(2, 'sales'),
      item(2, 'use'),
      item(3, 'local'),
      item(4, 'x'),
      item(0, 'Term'),
      item(1, 'Renewal'),
      item(0, 'point', 2),
    ].join('');
    const read = await readDocx(await docx(body, numbering));
    expect(read.accepted.split('\n')).to.deep.equal([
      '1. Fees',
      '1.1 Invoices',
      '1.2 Taxes',
      '(a) sales',
      '(b) use',
      '(i) local',
      'IV x',
      '2. Term',
      '2.1 Renewal',
      '• point',
    ]);
  });

  it('reads back a redline it wrote: accepted is version b, rejected version a', async () => {
    const a = ['# Terms', '1. Fees', 'Pay within thirty days.', 'Assignment needs consent.', 'Notices\tin writing.'].join('\n');
    const b = [
      '# Terms and Conditions',
      '1. Fees',
      'Pay within sixty days of invoice.',
      'Notices\tby email.',
      '## Schedule',
      'Support hours are 9 to 5.',
    ].join('\n');
    const redline = redlineTexts({ a, b });
    const file = await writeDocx(redlineParagraphs(redline.paragraphs, { author: 'Ann', date: '2026-11-28T12:00:00.000Z' }));
    const read = await readDocx(await JSZip.loadAsync(file));
    expect(read.accepted).to.equal(b);
    expect(read.rejected).to.equal(a);
    expect(read.changes.every((c) => c.author === 'Ann' && c.date === '2026-11-28T12:00:00Z')).to.equal(true);
    expect((await readDocx(await JSZip.loadAsync(await writeDocx(textParagraphs(a))))).accepted).to.equal(a);
  });

  it('allows hyperlinks, cuts an attached template off, and refuses any other external relationship or a macro', async () => {
    const rels = (rel: string) =>
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel}</Relationships>`;
    const rel = (type: string, target: string) =>
      `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}" TargetMode="External"/>`;
    const zip = await docx('<w:p/>');
    zip.file('word/_rels/document.xml.rels', rels(rel('hyperlink', 'https://example.com')));
    zip.file('word/_rels/settings.xml.rels', rels(rel('attachedTemplate', 'file:////Users/me/Templates/Normal.dotm')));
    zip.file('word/settings.xml', `<w:settings xmlns:w="${W}" xmlns:r="r"><w:attachedTemplate r:id="rId1"/></w:settings>`);
    expect(await refusalOf(zip)).to.equal(null);
    expect(await dropAttachedTemplate(zip)).to.equal(true);
    expect(await zip.file('word/_rels/settings.xml.rels')!.async('string')).not.to.contain('attachedTemplate');
    expect(await zip.file('word/settings.xml')!.async('string')).not.to.contain('attachedTemplate');
    zip.file('word/_rels/document.xml.rels', rels(rel('oleObject', '\\\\attacker\\share\\x.bin')));
    expect(await refusalOf(zip)).to.deep.include({ kind: 'external' });
    zip.file('word/_rels/document.xml.rels', rels(''));
    zip.file('word/vbaProject.bin', 'x');
    expect(await refusalOf(zip)).to.deep.include({ kind: 'macro' });
  });

  it('refuses a part that declares a DOCTYPE (entity expansion starts there)', async () => {
    const zip = new JSZip();
    zip.file('word/document.xml', `<!DOCTYPE d [<!ENTITY a "aaaa">]><w:document xmlns:w="${W}"><w:body/></w:document>`);
    let error: Error | undefined;
    await readDocx(zip).catch((e: Error) => (error = e));
    expect(error?.message).to.contain('DOCTYPE');
  });
});
