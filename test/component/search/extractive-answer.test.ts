import { expect } from 'chai';
import { testEnv } from '../../support/env';
import type { ContextPassage } from '../../../platform/ai/port';
import { extractiveAnswer, quotableUnits } from '../../../platform/ai/extractive-answer';

const collect = async (it: AsyncIterable<string>) => {
  let s = '';
  for await (const p of it) s += p;
  return s;
};

/** The answer's quote lines: quote, document, page, citation number. */
const quotes = (answer: string) =>
  [...answer.matchAll(/^"(.*)" \((.+), page (\d+)\) \[(\d+)\]$/gm)].map((m) => ({
    quote: m[1]!,
    title: m[2]!,
    page: Number(m[3]),
    cite: Number(m[4]),
  }));

describe('whole-clause answers (local provider)', function () {
  this.timeout(30000);

  it('quotes a clause introduced by a colon with all its list items, cited with document and page', async () => {
    // A mutual NDA's termination clause as DOCX extraction writes it (items one level deeper).
    const context: ContextPassage[] = [
      {
        title: 'Mutual NDA.docx',
        page: 2,
        section: 'Term and Termination',
        relevance: 0.52,
        text: '## Term.  This Agreement lasts two years.\n## Effect of Termination.  Upon termination of this Agreement, the Receiving Party will:\n### (a) cease using Confidential Information;\n### (b) return or destroy all Confidential Information and copies of it; and\n### (c) certify the return or destruction in writing on request.\n## Survival.  Sections 3 and 4 survive termination.',
      },
      { title: 'Office lease.pdf', page: 1, section: 'Rent', relevance: 0.4, text: 'Rent is due on the first day of each month.' },
    ];
    const answer = await collect(
      testEnv().services.ai.generateAnswer({ question: 'What happens to confidential information at termination?', history: [], context }),
    );
    const [first, ...rest] = quotes(answer);
    expect(first, answer).to.deep.equal({
      quote:
        'Upon termination of this Agreement, the Receiving Party will: (a) cease using Confidential Information; (b) return or destroy all Confidential Information and copies of it; and (c) certify the return or destruction in writing on request.',
      title: 'Mutual NDA.docx',
      page: 2,
      cite: 1,
    });
    expect(rest.length).to.be.at.most(1);
  });

  it('never quotes a sentence a chunk boundary cut, at either end', () => {
    const units = quotableUnits(
      'of the other party before the end of the term. Fees are due within 30 days. The Customer may terminate this Agreement if the Provider fails to',
    );
    expect(units.map((u) => u.text)).to.deep.equal(['Fees are due within 30 days.']);
  });

  it('drops a colon clause whose list the passage cuts off, and keeps a list that ends the passage with a full stop', () => {
    expect(quotableUnits('The Provider will:\n(a) keep records;\n(b) allow audits').map((u) => u.text)).to.deep.equal([]);
    expect(quotableUnits('The Provider will:\n(a) keep records; and\n(b) allow audits.').map((u) => u.text)).to.deep.equal([
      'The Provider will: (a) keep records; and (b) allow audits.',
    ]);
  });

  it('answers from the passage that says it, ranked by meaning, not shared words, and says so when nothing was retrieved', async () => {
    const embed = (texts: string[]) => testEnv().services.ai.embed(texts, 'query');
    const context: ContextPassage[] = [
      {
        title: 'MSA.docx',
        page: 4,
        section: 'Payment',
        relevance: 0.45,
        text: 'Customer will pay each invoice within 45 days of receipt. Late amounts accrue interest.',
      },
      {
        title: 'MSA.docx',
        page: 9,
        section: 'Governing Law and Chosen Courts',
        relevance: 0.41,
        text: 'The parties will bring any legal suit, action, or proceeding about this Agreement in the courts located in Boston, Massachusetts.',
      },
    ];
    const [quote] = quotes(await extractiveAnswer('Where are disputes heard?', context, embed));
    expect(quote).to.include({ title: 'MSA.docx', page: 9, cite: 2 });
    expect(await extractiveAnswer('Where are disputes heard?', [], embed)).to.match(/could not find/);
  });
});
