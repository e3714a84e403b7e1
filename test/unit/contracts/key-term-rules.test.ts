import { expect } from 'chai';
import { extractKeyTermsByRules } from '../../../services/contracts/extract-key-terms';

const termsOf = (text: string) => extractKeyTermsByRules([{ page: 1, text }]);

/** Forms of wording the rules read beyond the cover-page tables they started from. */
describe('key-term rules', () => {
  it('names parties introduced with their description and defined role', () => {
    const t = termsOf(
      'This Supply Agreement is made and entered into as of May 4, 2026 by and between Harbour Mills, Inc., an Ohio corporation ("Buyer"), and Quayside Grain LLC ("Seller").',
    );
    expect(t.parties?.normalized).to.deep.equal(['Harbour Mills, Inc.', 'Quayside Grain LLC']);
    expect(t.effective_date?.normalized).to.equal('2026-05-04');
  });

  it('names parties of a reference line that a date follows', () => {
    const t = termsOf(
      'The parties will call this the “Hosting Agreement between Harbour Mills, Inc. and Quayside Grain LLC dated as of May 4, 2026”.',
    );
    expect(t.parties?.normalized).to.deep.equal(['Harbour Mills, Inc.', 'Quayside Grain LLC']);
  });

  it('reads a cover page whose rows name the parties by role and the governing law by place', () => {
    const t = termsOf(
      [
        'Cover Terms',
        'Employer',
        '\tHarbour Mills, Inc.',
        'Employee',
        '\tRiley Chen',
        'Governing Law',
        '\tOregon',
        'Term of Agreement',
        '\t18 months',
      ].join('\n'),
    );
    expect(t.parties?.normalized).to.deep.equal(['Harbour Mills, Inc.', 'Riley Chen']);
    expect(t.governing_law?.normalized).to.equal('Oregon');
    expect(t.term_length?.normalized).to.equal(548);
  });

  it('takes signature lines of the form "Party Name: …"', () => {
    const t = termsOf(['Party Name: Harbour Mills, Inc.', 'Signature:', 'Party Name: Quayside Grain LLC', 'Signature:'].join('\n'));
    expect(t.parties?.normalized).to.deep.equal(['Harbour Mills, Inc.', 'Quayside Grain LLC']);
  });

  it('reads a right to end the relationship without cause as termination for convenience', () => {
    expect(
      termsOf('Either party may end the engagement at any time without cause by written notice.').termination_for_convenience?.normalized,
    ).to.equal(true);
    expect(termsOf('Either party may end the engagement if the other fails to pay.').termination_for_convenience).to.equal(null);
  });
});
