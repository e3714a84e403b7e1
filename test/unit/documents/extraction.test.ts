import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Document as DocxDocument, HeadingLevel, Packer, PageBreak, Paragraph, TextRun } from 'docx';
import mammoth from 'mammoth';
import { chunkBatches, Chunker } from '../../../services/search/chunking';
import { MIME } from '../../../services/documents/document-files';
import { extractPages, extractText, htmlToText } from '../../../services/documents/extraction';
import { makeDocx } from '../../support/documents';

describe('DOCX extraction', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'clm-extraction-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const save = (name: string, bytes: Buffer) => {
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    return file;
  };

  it('splits pages at explicit page breaks, headings still `#` lines', async () => {
    const file = save(
      'paged.docx',
      await makeDocx([
        { heading: 'Definitions', paragraphs: ['Agreement means this contract.', 'Party means a signatory.'] },
        { heading: 'Payment', paragraphs: ['Invoices are due in 30 days.'], newPage: true },
        { heading: 'Termination', paragraphs: ['Either party may terminate on notice.'], newPage: true },
      ]),
    );
    expect(await extractPages(file, MIME.docx)).to.deep.equal([
      { page: 1, text: '# Definitions\nAgreement means this contract.\nParty means a signatory.' },
      { page: 2, text: '# Payment\nInvoices are due in 30 days.' },
      { page: 3, text: '# Termination\nEither party may terminate on notice.' },
    ]);
    // Pages end as PDF pages do: the chunker counts three, each chunk cites its own page.
    const chunker = new Chunker();
    const chunks = [];
    for await (const batch of chunkBatches(extractText(file, MIME.docx), 100, chunker)) chunks.push(...batch);
    expect(chunker.pageCount).to.equal(3);
    expect(chunks.map((c) => [c.page, c.section])).to.deep.equal([
      [1, 'Definitions'],
      [2, 'Payment'],
      [3, 'Termination'],
    ]);
  });

  it('keeps a DOCX without page breaks one page, as before', async () => {
    const file = save(
      'flat.docx',
      await makeDocx([
        { heading: 'Travel', paragraphs: ['Economy class for flights under six hours.', 'Business class above.'] },
        { heading: 'Expenses', paragraphs: ['Receipts within 30 days.'] },
      ]),
    );
    const text = '# Travel\nEconomy class for flights under six hours.\nBusiness class above.\n\n# Expenses\nReceipts within 30 days.';
    // What extraction gave before page breaks were read: mammoth's default HTML as text.
    expect(htmlToText((await mammoth.convertToHtml({ path: file })).value)).to.equal(text);
    expect(await extractPages(file, MIME.docx)).to.deep.equal([{ page: 1, text }]);
  });

  it('splits at breaks inside paragraphs and headings, and keeps the blank page of two breaks in a row', async () => {
    const doc = new DocxDocument({
      sections: [
        {
          children: [
            new Paragraph({ text: 'Scope', heading: HeadingLevel.HEADING_1 }),
            new Paragraph({ children: [new TextRun('End of page one.'), new PageBreak(), new TextRun('Top of page two.')] }),
            // Ctrl+Enter typed at the start of a heading leaves the break inside it.
            new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new PageBreak(), new TextRun('Liability')] }),
            new Paragraph({ children: [new TextRun('Capped at fees paid.'), new PageBreak(), new PageBreak()] }),
            new Paragraph({ text: 'After a blank page.' }),
          ],
        },
      ],
    });
    const file = save('breaks.docx', await Packer.toBuffer(doc));
    expect(await extractPages(file, MIME.docx)).to.deep.equal([
      { page: 1, text: '# Scope\nEnd of page one.' },
      { page: 2, text: 'Top of page two.' },
      { page: 3, text: '# Liability\nCapped at fees paid.' },
      { page: 4, text: '' },
      { page: 5, text: 'After a blank page.' },
    ]);
  });
});
