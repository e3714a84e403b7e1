import { expect } from 'chai';
import { chunkPages, fullText, headingOf, type Page } from '../lib/chunking';

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
      expect(chunks.some((c) => c.page === page && c.text.includes(`number ${i} says`)), `sentence ${i}`).to.be.true;
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

  it('is deterministic and skips empty pages', () => {
    const pages: Page[] = [{ page: 1, text: paragraph(0, 30) }, { page: 2, text: '   ' }, { page: 3, text: 'Short last page.' }];
    expect(chunkPages(pages)).to.deep.equal(chunkPages(pages));
    expect(chunkPages(pages).map((c) => c.page)).to.not.include(2);
    expect(chunkPages(pages).at(-1)).to.include({ page: 3, text: 'Short last page.', section: '' });
  });
});
