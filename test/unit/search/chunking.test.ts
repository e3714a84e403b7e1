import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkBatches, Chunker, chunkPages, fullText, headingOf, type ChunkOptions, type Page } from '../../../services/search/chunking';
import type { Chunk } from '../../../models/document';
import { txtPieces } from '../../../services/documents/extraction';

const sentence = (i: number) => `Sentence number ${i} says something about the agreement between the parties. `;
const paragraph = (from: number, n: number) => Array.from({ length: n }, (_, i) => sentence(from + i)).join('');

describe('chunking', () => {
  it('recognises headings and leaves sentences alone', () => {
    expect(headingOf('# Payment Terms')).to.equal('Payment Terms');
    expect(headingOf('12. Termination')).to.equal('12. Termination');
    expect(headingOf('ARTICLE 5 - LIABILITY')).to.equal('ARTICLE 5 - LIABILITY');
    expect(headingOf('CONFIDENTIALITY')).to.equal('CONFIDENTIALITY');
    expect(headingOf('The supplier shall pay within 30 days.')).to.equal(null);
    expect(headingOf('')).to.equal(null);
    // A Word heading holding a whole clause is titled by its run-in title; a sentence has none.
    expect(headingOf('## Effect of Termination.  Upon any expiration or termination:')).to.equal('Effect of Termination');
    expect(headingOf('## Modifications, Severability, and Waiver.  Any waiver must be in writing.')).to.equal(
      'Modifications, Severability, and Waiver',
    );
    expect(headingOf('### Customer will no longer have any right to use the Product.')).to.equal(null);
    // Form values and tick boxes are not titles.
    expect(headingOf('24 months')).to.equal(null);
    expect(headingOf('[ x ] HIPAA')).to.equal(null);
  });

  it('covers every page with overlapping chunks whose offsets point into the full text', () => {
    const pages: Page[] = [
      { page: 1, text: `1. Definitions\n${paragraph(0, 40)}` },
      { page: 2, text: `2. Payment\n${paragraph(40, 40)}\n\n3. Termination\n${paragraph(80, 30)}` },
    ];
    const chunks = chunkPages(pages, { size: 1000, overlap: 150 });
    const text = fullText(pages);
    expect(chunks.length).to.be.greaterThan(6);
    chunks.forEach((c, i) => {
      expect(c.index).to.equal(i);
      expect(text.slice(c.start, c.end)).to.equal(c.text);
      expect(c.text.length).to.be.at.most(1000);
      expect(c.text).to.equal(c.text.trim());
    });
    // Every sentence is in some chunk of its own page.
    for (let i = 0; i < 110; i++) {
      const page = i < 40 ? 1 : 2;
      expect(
        chunks.some((c) => c.page === page && c.text.includes(`number ${i} says`)),
        `sentence ${i}`,
      ).to.be.true;
    }
    // Consecutive chunks of one page and section share text (the overlap).
    const p1 = chunks.filter((c) => c.page === 1);
    expect(p1[1]!.start).to.be.lessThan(p1[0]!.end);
    // Sections follow the headings, across the page break too.
    expect(chunks[0]!.section).to.equal('1. Definitions');
    expect(chunks.find((c) => c.text.includes('number 50 says'))!.section).to.equal('2. Payment');
    expect(chunks.find((c) => c.text.includes('number 100 says'))!.section).to.equal('3. Termination');
    // A heading starts a chunk rather than trailing at the end of the previous one.
    expect(chunks.some((c) => c.text.startsWith('3. Termination'))).to.be.true;
  });

  it('starts a chunk at each clause of a DOCX (a Markdown line with a run-in title), titled by it', () => {
    const clause = (title: string) =>
      `## ${title}.  ${Array.from({ length: 12 }, () => `The ${title.toLowerCase()} terms apply as agreed.`).join(' ')}`;
    const text = [
      '# Term & Termination',
      clause('Term'),
      clause('Termination'),
      '## Effect of Termination.  Upon any expiration or termination:',
      '### Customer will stop using the Product.',
      '### Each party will return Confidential Information.',
      clause('Survival'),
    ].join('\n');
    const chunks = chunkPages([{ page: 1, text }]);
    expect(chunks.map((c) => c.section).slice(0, 3)).to.deep.equal(['Term & Termination', 'Termination', 'Effect of Termination']);
    // A clause's list items stay with the colon that introduces them.
    expect(chunks[2]!.text).to.include('termination:\n### Customer will stop').and.include('### Each party will return');
  });

  it('is deterministic and skips empty pages', () => {
    const pages: Page[] = [
      { page: 1, text: paragraph(0, 30) },
      { page: 2, text: '   ' },
      { page: 3, text: 'Short last page.' },
    ];
    expect(chunkPages(pages)).to.deep.equal(chunkPages(pages));
    expect(chunkPages(pages).map((c) => c.page)).to.not.include(2);
    expect(chunkPages(pages).at(-1)).to.include({ page: 3, text: 'Short last page.', section: '' });
  });

  describe('streamed', () => {
    // Headings (numbered, Markdown, capitals, one indented with trailing blanks), CRLF and
    // lone CR line ends, form feeds (one page blank, pages with leading and trailing white
    // space), a BOM, 2-, 3- and 4-byte UTF-8 characters, a heading-like line too long to be one.
    const body = (from: number, n: number) => paragraph(from, n).replace(/agreement/g, 'agréement 契約 𝄞😀');
    const text =
      `\uFEFF  1. Definitions\r\n${body(0, 25)}\r\n\r\n   # Payment Terms   \r\n${body(25, 30)}\r` +
      `CONFIDENTIALITY\n${body(55, 12)}  \t\n\f\r\n \f\n\n  ARTICLE 5 - LIABILITY\r\n${body(67, 40)}\n${'X'.repeat(140)}\n` +
      `${body(107, 8)}\r\n\r\n\f  Short last page. é   \r\n`;
    // What a TXT file's pages are: line ends made \n, split at form feeds, each page trimmed.
    const pages: Page[] = text
      .replace(/\r\n?/g, '\n')
      .split('\f')
      .map((t, i) => ({ page: i + 1, text: t.trim() }));
    const options: ChunkOptions[] = [
      { size: 1200, overlap: 200 },
      { size: 300, overlap: 60 },
    ];
    let dir: string;
    before(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'chunking-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('gives the chunks of the whole text when the pages arrive in pieces of any size', () => {
      for (const opts of options) {
        const whole = chunkPages(pages, opts);
        expect(whole.length).to.be.greaterThan(opts.size === 300 ? 40 : 10);
        for (const pieceChars of [1, 7, 64, 1000]) {
          const chunker = new Chunker(opts);
          const streamed: Chunk[] = [];
          for (const { page, text: t } of pages) {
            for (let i = 0; i < t.length; i += pieceChars) streamed.push(...chunker.write(page, t.slice(i, i + pieceChars)));
            if (!t) streamed.push(...chunker.write(page, ''));
          }
          streamed.push(...chunker.endPage());
          expect(streamed, `${opts.size}/${pieceChars}`).to.deep.equal(whole);
          expect(chunker.pageCount).to.equal(pages.length);
        }
      }
    });

    it('reads a TXT file in pieces (multi-byte characters and CRLF split at piece ends) into the same chunks and pages', async () => {
      const file = path.join(dir, 'contract.txt');
      writeFileSync(file, text);
      const bytes = Buffer.byteLength(text);
      for (const opts of options) {
        const whole = chunkPages(pages, opts);
        const text0 = fullText(pages);
        whole.forEach((c) => expect(text0.slice(c.start, c.end)).to.equal(c.text));
        expect(whole.map((c) => c.section)).to.include.members([
          '1. Definitions',
          'Payment Terms',
          'CONFIDENTIALITY',
          'ARTICLE 5 - LIABILITY',
        ]);
        for (const pieceBytes of [1, 2, 3, 5, 64, 4096, bytes]) {
          const chunker = new Chunker(opts);
          const streamed: Chunk[] = [];
          for await (const batch of chunkBatches(txtPieces(file, pieceBytes), 7, chunker)) {
            expect(batch.length).to.be.within(1, 7);
            streamed.push(...batch);
          }
          expect(streamed, `${opts.size}/${pieceBytes} bytes`).to.deep.equal(whole);
          expect(chunker.pageCount, 'pages').to.equal(pages.length);
        }
      }
    });
  });
});
