import { expect } from 'chai';
import { loadConfig } from '../../../platform/config';
import { readKeyTermsByRules } from '../../../services/contracts/extract-key-terms';
import { KEY_TERMS } from '../../../services/contracts/key-terms.shared';

const config = loadConfig({ NODE_ENV: 'test' });
const limits = {
  maxTextChars: config.KEY_TERMS_MAX_TEXT_CHARS,
  maxLineChars: config.KEY_TERMS_MAX_LINE_CHARS,
  // Generous: these tests check what the rules read, not how fast.
  budgetMs: 60_000,
};
const termsOf = (text: string) => readKeyTermsByRules({ pages: [{ page: 1, text }], limits }).terms;

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

  it('keeps a sentence whole across "U.S." and "Inc." and reads the cap it states', () => {
    const t = termsOf(
      'Under no circumstances will Lakeside Analytics, Inc. be liable for more than the following: its total liability under this Agreement will not exceed fifty thousand U.S. dollars (US $50,000).',
    );
    expect(t.liability_cap?.normalized).to.deep.equal({ amount: 50000, currency: 'USD' });
    expect(t.liability_cap?.quote).to.match(/^Under no circumstances .* \(US \$50,000\)\.$/);
  });

  it('names the one party of terms a reader accepts', () => {
    expect(
      termsOf('These terms form a contract between you (the “Member”) and Lakeside Analytics, Inc. (“Lakeside”).').parties?.normalized,
    ).to.deep.equal(['Lakeside Analytics, Inc.']);
    expect(
      termsOf('“Subscriber” means the business that has entered into this Agreement with Lakeside Analytics by accepting an order.').parties
        ?.normalized,
    ).to.deep.equal(['Lakeside Analytics']);
  });

  it('reads a cap in fees after "in no event will … exceed the greater of"', () => {
    const t = termsOf(
      'IN NO EVENT WILL EITHER PARTY’S TOTAL LIABILITY UNDER THIS AGREEMENT, IN CONTRACT OR IN TORT, EXCEED THE GREATER OF (A) THE FEES YOU PAID US IN THE SIX (6) MONTHS BEFORE THE CLAIM; OR (B) TWO HUNDRED FIFTY DOLLARS ($250).',
    );
    expect(t.liability_cap?.value).to.include('THE FEES YOU PAID US');
    expect(t.liability_cap?.normalized).to.deep.equal({ fees_multiple: 1, months: 6 });
  });

  it('follows a cap stated by reference to its definition', () => {
    const t = termsOf(
      [
        'Each party’s liability arising under this Agreement will not exceed the Liability Limit.',
        '“Liability Limit” means the fees payable by Client to Vendor in the 24 months before the event giving rise to the claim.',
      ].join('\n'),
    );
    expect(t.liability_cap?.normalized).to.deep.equal({ fees_multiple: 1, months: 24 });
    expect(t.liability_cap?.quote).to.match(/^“Liability Limit” means the fees payable/);
  });

  it('passes over a cap on one offering for the agreement’s own cap, and returns none when only such caps exist', () => {
    const t = termsOf(
      'For Early Access Features, Vendor’s liability is limited to US$500. In no event will either party’s aggregate liability under this Agreement exceed $20,000.',
    );
    expect(t.liability_cap?.normalized).to.deep.equal({ amount: 20000, currency: 'USD' });
    expect(termsOf('Vendor’s liability for Pilot Services will not exceed $2,000.').liability_cap).to.equal(null);
  });

  it('reads a term whose duration comes before "term", and not a retention period', () => {
    expect(termsOf('This Agreement runs for an initial 24-month term starting on the Effective Date.').term_length?.normalized).to.equal(
      730,
    );
    expect(
      termsOf('Vendor may keep backups of Client Data under this Agreement for a period of 90 days after termination.').term_length,
    ).to.equal(null);
    expect(termsOf('This Agreement continues for so long as an Order is open, and each Order lasts 90 days.').term_length).to.equal(null);
  });

  it('takes a repeated "Duration" row for each covenant’s, not the agreement’s', () => {
    const t = termsOf(['Non-Compete', 'Duration', '6 months', 'Non-Solicit', 'Duration', '18 months'].join('\n'));
    expect(t.term_length).to.equal(null);
  });

  it('reads renewal for successive periods without "automatically", and its notice before the period ends', () => {
    const t = termsOf(
      'The Service Period shall renew for consecutive one-year periods unless either party gives notice of non-renewal at least 45 days before the then-current Service Period ends.',
    );
    expect(t.auto_renewal?.normalized).to.equal(true);
    expect(t.renewal_term?.normalized).to.equal(365);
    expect(t.non_renewal_notice_days?.normalized).to.equal(45);
    expect(
      termsOf('Customer must report defects at least 30 days before the end of the warranty period.').non_renewal_notice_days,
    ).to.equal(null);
    expect(
      termsOf('This Agreement will be renewed for additional one-year terms by mutual written agreement.').auto_renewal?.normalized,
    ).to.equal(false);
  });

  it('reads "governed under <place> law" and rejects a section for a place', () => {
    expect(termsOf('This Agreement is governed under Delaware law.').governing_law?.normalized).to.equal('Delaware');
    expect(termsOf('Disputes about invoices are governed by Article 7 (Billing).').governing_law).to.equal(null);
  });

  it('reads venues of districts, tribunals and disputes heard in a place', () => {
    expect(termsOf('Each party submits to the courts located in the Southern District of New York.').dispute_venue?.normalized).to.equal(
      'Southern District of New York',
    );
    expect(termsOf('Claims must be filed with an arbitral tribunal located in or near Austin, Texas.').dispute_venue?.normalized).to.equal(
      'Austin, Texas',
    );
    expect(termsOf('Any claim under this Agreement shall be heard exclusively in Ontario.').dispute_venue?.normalized).to.equal('Ontario');
  });

  it('reads a right to terminate the agreement, not a use of it or a survival clause, as termination for convenience', () => {
    expect(
      termsOf('Client may terminate Vendor’s access to Beta Features at any time for any reason.').termination_for_convenience,
    ).to.equal(null);
    expect(termsOf('Sections 4 and 5 survive termination of this Agreement for any reason.').termination_for_convenience).to.equal(null);
  });

  it('reads a sentence wrapped over lines as one, and keeps rows and numbered items apart', () => {
    const t = termsOf(
      [
        'This Storage Agreement is made and entered into on 12 October 2026 by and',
        'between Fenwick Cold Stores Limited ("Operator") and Ridgeway Orchards',
        'Limited ("Grower"). The Agreement shall continue for an initial term of',
        'three (3) years and shall then extend automatically for further periods',
        'of one (1) year each unless either party gives at least sixty (60) days',
        'written notice of non-renewal before the end of the then-current term.',
        'Storage Fee: GBP 4 per pallet per week, invoiced at the end of each month',
        'Payment Terms: Net 21',
        '7. This Agreement is governed by the laws of Northern Ireland.',
      ].join('\n'),
    );
    expect(t.parties?.normalized).to.deep.equal(['Fenwick Cold Stores Limited', 'Ridgeway Orchards Limited']);
    expect(t.effective_date?.normalized).to.equal('2026-10-12');
    expect(t.term_length?.normalized).to.equal(1095);
    expect(t.end_date?.normalized).to.equal('2029-10-12');
    expect(t.auto_renewal?.normalized).to.equal(true);
    expect(t.renewal_term?.normalized).to.equal(365);
    expect(t.non_renewal_notice_days?.normalized).to.equal(60);
    expect(t.payment_terms?.normalized).to.equal(21);
    expect(t.governing_law?.normalized).to.equal('Northern Ireland');
  });

  it('reads an ordinal date the text names the Effective Date, and a term the engagement runs for', () => {
    const t = termsOf(
      'This Licence, signed on the 3rd day of August, 2026 (the "Effective Date"), binds Corrie Labs Ltd and its licensee. The engagement runs for nine (9) months from the Effective Date.',
    );
    expect(t.effective_date?.normalized).to.equal('2026-08-03');
    expect(t.term_length?.normalized).to.be.closeTo(274, 1);
    expect(t.end_date?.normalized).to.equal('2027-05-03');
  });

  it('reads a venue row of a cover page, as a place or as its courts', () => {
    expect(termsOf('Venue: Maricopa County, Arizona').dispute_venue?.normalized).to.equal('Maricopa County, Arizona');
    expect(termsOf('Jurisdiction\tthe state and federal courts of Multnomah County').dispute_venue?.normalized).to.equal(
      'Multnomah County',
    );
    expect(termsOf('Courts: Section 14 applies').dispute_venue).to.equal(null);
  });

  it('reads places of three words and a venue of two joined by "and"', () => {
    const t = termsOf('This Agreement is governed by the laws of New South Wales. The courts of Trinidad and Tobago hear any claim.');
    expect(t.governing_law?.normalized).to.equal('New South Wales');
    expect(t.dispute_venue?.normalized).to.equal('Trinidad and Tobago');
  });
});

describe('key-term rules on long and hostile text', () => {
  const LAW = 'This Agreement is governed by the laws of the State of Texas.';

  it('reads a line longer than the line limit in pieces, its quotes still verbatim', () => {
    const text = `${'Recitals follow here. '.repeat(1000)}${LAW} ${'More recitals follow. '.repeat(1000)}`;
    const t = readKeyTermsByRules({ pages: [{ page: 1, text }], limits: { ...limits, maxLineChars: 500 } }).terms;
    expect(t.governing_law).to.include({ normalized: 'Texas', quote: LAW });
    expect(text).to.contain(t.governing_law!.quote);
  });

  it('reads only the first maxTextChars characters, and says so', () => {
    const text = `${'Recitals follow here. '.repeat(100)}${LAW}`;
    const cut = readKeyTermsByRules({ pages: [{ page: 1, text }], limits: { ...limits, maxTextChars: 1000 } });
    expect(cut.truncated).to.equal(true);
    expect(cut.terms.governing_law).to.equal(null);
    const whole = readKeyTermsByRules({ pages: [{ page: 1, text }], limits });
    expect(whole.truncated).to.equal(false);
    expect(whole.terms.governing_law?.normalized).to.equal('Texas');
  });

  it('leaves the keys it has no time for unread, in order, rather than running on', () => {
    const text = `${'a. '.repeat(100_000)}${LAW}`;
    const answer = readKeyTermsByRules({ pages: [{ page: 1, text }], limits: { ...limits, budgetMs: 1 } });
    expect(answer.unread).to.not.be.empty;
    expect(answer.unread).to.deep.equal(KEY_TERMS.slice(KEY_TERMS.length - answer.unread.length));
    for (const key of answer.unread) expect(answer.terms[key]).to.equal(null);
  });

  it('skips bracketed notes and keeps ticked boxes, with a "[" that nothing closes', () => {
    const text = [
      '[Drafting note: This Agreement is governed by the laws of the State of Ohio.]',
      '[ x ] Option A',
      LAW,
      '[ unclosed',
    ].join('\n');
    const t = readKeyTermsByRules({ pages: [{ page: 1, text }], limits }).terms;
    expect(t.governing_law?.normalized).to.equal('Texas');
  });
});
