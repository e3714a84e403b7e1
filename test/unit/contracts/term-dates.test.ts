import { expect } from 'chai';
import { loadConfig } from '../../../platform/config';
import { readKeyTermsByRules } from '../../../services/contracts/extract-key-terms';
import { emptyTerms } from '../../../services/contracts/key-terms.shared';
import { addDuration, fillFromSignature, startNamedIn } from '../../../services/contracts/term-dates';

const config = loadConfig({ NODE_ENV: 'test' });
const limits = { maxTextChars: config.KEY_TERMS_MAX_TEXT_CHARS, maxLineChars: config.KEY_TERMS_MAX_LINE_CHARS, budgetMs: 60_000 };
const read = (text: string) => readKeyTermsByRules({ pages: [{ page: 1, text }], limits });

describe('term dates', () => {
  it('count months and years on the calendar, a missing month end falling on the last day', () => {
    expect(addDuration('2026-04-14', { n: 2, unit: 'year' })).to.equal('2028-04-14');
    expect(addDuration('2026-01-31', { n: 1, unit: 'month' })).to.equal('2026-02-28');
    expect(addDuration('2028-02-29', { n: 1, unit: 'year' })).to.equal('2029-02-28');
    expect(addDuration('2026-12-15', { n: 90, unit: 'day' })).to.equal('2027-03-15');
    expect(addDuration('2027-03-15', { n: 3, unit: 'month' }, -1)).to.equal('2026-12-15');
  });

  it('name the start a term is counted from', () => {
    expect(startNamedIn('for three years from the Effective Date')).to.equal('effective_date');
    expect(startNamedIn('for 6 months after the Commencement Date')).to.equal('commencement_date');
    expect(startNamedIn('effective on the date of the last signature below')).to.equal('last_signature');
    expect(startNamedIn('effective when fully executed by both parties')).to.equal('last_signature');
    expect(startNamedIn('for a period of one year')).to.equal(null);
  });
});

describe('end dates by rules', () => {
  it('derive the end from the effective date and the initial term, citing both and naming the rule', () => {
    const { terms } = read(
      [
        'This Hosting Agreement is entered into as of 3 February 2026 (the "Effective Date") between Marlow Freight Ltd and Tern Data Inc.',
        'The initial term of this Agreement is two (2) years from the Effective Date.',
        'This Agreement then renews automatically for successive twelve (12) month periods unless either party gives notice of non-renewal at least 60 days before the end of the then-current term.',
      ].join('\n'),
    );
    expect(terms.effective_date?.normalized).to.equal('2026-02-03');
    expect(terms.term_length?.normalized).to.equal(730);
    expect(terms.end_date).to.include({ normalized: '2028-02-03' });
    expect(terms.end_date!.derived_from).to.deep.equal(['effective_date', 'initial_term']);
    expect(terms.end_date!.sources!.map((s) => s.from)).to.deep.equal(['effective_date', 'initial_term']);
    expect(terms.end_date!.sources![0]!.quote).to.contain('3 February 2026');
    expect(terms.end_date!.sources![1]!.quote).to.contain('two (2) years');
    expect(terms.auto_renewal?.normalized).to.equal(true);
    expect(terms.renewal_term?.normalized).to.equal(365);
    expect(terms.non_renewal_notice_days?.normalized).to.equal(60);
  });

  it('take a stated expiry date over arithmetic', () => {
    const { terms } = read('This Lease commences on the Effective Date and expires on 30 September 2029.');
    expect(terms.end_date).to.include({ normalized: '2029-09-30' });
    expect(terms.end_date!.derived_from).to.deep.equal(['expiry_date']);
  });

  it('count from a stated commencement when the term names it', () => {
    const { terms } = read(
      [
        'This Work Order is dated May 2, 2026.',
        'Work shall commence on June 8, 2026 (the "Commencement Date").',
        'This Work Order remains in effect for a period of nine (9) months from the Commencement Date.',
      ].join('\n'),
    );
    expect(terms.end_date).to.include({ normalized: '2027-03-08' });
    expect(terms.end_date!.derived_from).to.deep.equal(['commencement_date', 'initial_term']);
  });

  it('start at the last signature when the text says so, from the latest dated signature line', () => {
    const { terms } = read(
      [
        'This Data Sharing Agreement takes effect on the date of the last signature below and continues for one (1) year.',
        'Harrow Labs Inc.',
        'Date: July 1, 2026',
        'Quince Research LLC',
        'Date: July 9, 2026',
      ].join('\n'),
    );
    expect(terms.effective_date).to.include({ normalized: '2026-07-09' });
    expect(terms.effective_date!.derived_from).to.deep.equal(['last_signature']);
    expect(terms.end_date).to.include({ normalized: '2027-07-09' });
    expect(terms.end_date!.derived_from).to.deep.equal(['last_signature', 'initial_term']);
  });

  it('give null with a reason, never a guess, when the start is the last signature and no signature is dated', () => {
    const answer = read('This Agreement becomes effective when fully executed and remains in effect for a period of 3 years.');
    expect(answer.terms.end_date).to.equal(null);
    expect(answer.reasons.end_date).to.match(/last signature.*does not date/);
    expect(answer.awaitingSignature?.term?.duration).to.deep.equal({ n: 3, unit: 'year' });
    // Signed here on 2026-10-20: the start and the end follow from it.
    const filled = fillFromSignature(answer.terms, answer.reasons, answer.awaitingSignature!, '2026-10-20');
    expect(filled.terms.effective_date).to.include({ normalized: '2026-10-20' });
    expect(filled.terms.end_date).to.include({ normalized: '2029-10-20' });
    expect(filled.terms.end_date!.derived_from).to.deep.equal(['signature_completed', 'initial_term']);
    expect(filled.reasons.end_date).to.equal(undefined);
  });

  it('give null with a reason for a term without a fixed end or a renewal of an unstated term', () => {
    const open = read('The engagement continues until the Deliverables are accepted or this Agreement is terminated.');
    expect(open.terms.end_date).to.equal(null);
    expect(open.reasons.end_date).to.match(/no fixed end/);
    const renewal = read('This Agreement renews upon expiry of the then-current term unless terminated.');
    expect(renewal.terms.end_date).to.equal(null);
    expect(renewal.reasons.end_date).to.match(/neither its start nor its length/);
    const undated = read(
      'The Services Term is twelve months after the Kickoff Date.\nThe term of this Agreement is 12 months after the Kickoff Date.',
    );
    expect(undated.terms.end_date).to.equal(null);
    expect(undated.reasons.end_date).to.match(/Kickoff Date, which the text does not date/);
  });

  it('leave a silent text without an end date and without a reason', () => {
    const answer = read('The supplier will deliver the goods to the warehouse.');
    expect(answer.terms.end_date).to.equal(null);
    expect(answer.reasons).to.deep.equal({});
    expect(
      fillFromSignature(emptyTerms(), {}, { clause: { from: 'last_signature', quote: 'x', page: 1 }, term: null }, '2026-01-01').terms
        .end_date,
    ).to.equal(null);
  });
});

describe('cover-page rows', () => {
  it('read "Label: value" lines and table rows, quoting the row', () => {
    const { terms } = read(
      [
        'Disclosing Party: Larkspur Genomics, Inc., a Delaware corporation',
        'Receiving Party: Ferrous Capital LP',
        'Effective Date: 2026-05-11',
        'Term\t18 months from the Effective Date',
        'Governing Law: State of Vermont',
        'Payment Terms\tNet 15',
      ].join('\n'),
    );
    expect(terms.parties?.normalized).to.deep.equal(['Larkspur Genomics, Inc.', 'Ferrous Capital LP']);
    expect(terms.parties?.value).to.equal('Larkspur Genomics, Inc. (Disclosing Party) and Ferrous Capital LP (Receiving Party)');
    expect(terms.effective_date).to.include({ normalized: '2026-05-11', quote: 'Effective Date: 2026-05-11' });
    expect(terms.term_length).to.include({ normalized: 548, quote: 'Term\t18 months from the Effective Date' });
    expect(terms.end_date).to.include({ normalized: '2027-11-11' });
    expect(terms.governing_law).to.include({ normalized: 'Vermont', quote: 'Governing Law: State of Vermont' });
    expect(terms.payment_terms).to.include({ normalized: 15 });
  });

  it('quote a label and the value in the cell below it as one row', () => {
    const text = 'Governing Law\n\tProvince of Alberta\n\t\nNotice of Non-Renewal\n\tforty-five (45) days before the end of the Term';
    const { terms } = read(text);
    expect(terms.governing_law).to.include({ normalized: 'Alberta', quote: 'Governing Law\n\tProvince of Alberta' });
    expect(text).to.contain(terms.governing_law!.quote);
    expect(terms.non_renewal_notice_days?.normalized).to.equal(45);
  });
});
