import { expect } from 'chai';
import { api } from '../../support/http';
import { fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { makeDocx, settled, upload } from '../../support/documents';

interface Source {
  from: string;
  quote: string;
  page: number;
}
interface Term {
  value: string;
  normalized: unknown;
  quote: string;
  page: number;
  derived_from?: string[];
  sources?: Source[];
}
interface TermsBody {
  terms: Record<string, Term | null>;
  opt_out_deadline: string | null;
  null_reasons: Record<string, string>;
}

const START =
  'This Hosting Agreement is entered into as of March 2, 2026 (the "Effective Date") by and between Harbour Cloud, Inc. and Quayside Foods LLC.';
const TERM = 'This Agreement continues for two (2) years from the Effective Date (the "Initial Term").';
const RENEWAL =
  'It then renews automatically for successive one (1) year periods unless either party gives notice of non-renewal at least 90 days before the end of the then-current term.';

async function contract(u: TestUser, content: string) {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'Harbour hosting', type: 'service_agreement', counterparty: 'Harbour Cloud, Inc.', content },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

const extract = async (u: TestUser, id: string) => {
  const res = await api<TermsBody>('POST', `/contracts/${id}/extract`, { token: u.token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};

describe('contract key terms: dates derived, cover pages, null with a reason', function () {
  this.timeout(90000);
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  it('gives an agreement with a start and a two-year term its end date and opt-out deadline, citing both quotes', async () => {
    const content = [START, TERM, RENEWAL].join('\n');
    const id = await contract(owner, content);
    const body = await extract(owner, id);
    const end = body.terms.end_date!;
    expect(end.normalized).to.equal('2028-03-02');
    expect(end.derived_from).to.deep.equal(['effective_date', 'initial_term']);
    expect(end.sources!.map((s) => s.from)).to.deep.equal(['effective_date', 'initial_term']);
    expect(end.sources!.map((s) => s.quote)).to.deep.equal([START, TERM]);
    for (const s of end.sources!) expect(content).to.contain(s.quote);
    expect(body.terms.renewal_term!.normalized).to.equal(365);
    expect(body.terms.non_renewal_notice_days!.normalized).to.equal(90);
    // 90 days before March 2, 2028.
    expect(body.opt_out_deadline).to.equal('2027-12-03');
    expect(body.null_reasons).to.deep.equal({});
    const read = await api<TermsBody>('GET', `/contracts/${id}/terms`, { token: owner.token });
    expect(read.body.opt_out_deadline).to.equal('2027-12-03');
    expect(read.body.terms.end_date).to.deep.equal(end);
    const renewals = await api<{ renewals: Array<{ contract_id: string; end_date: string; opt_out_deadline: string }> }>(
      'GET',
      '/contracts/renewals?within_days=3650',
      { token: owner.token },
    );
    expect(renewals.body.renewals.find((r) => r.contract_id === id)).to.include({ end_date: '2028-03-02', opt_out_deadline: '2027-12-03' });
  });

  it("reads a cover-page NDA's table: parties and roles, term and governing law, each citing its row", async () => {
    const id = await contract(owner, '');
    const bytes = await makeDocx([
      {
        heading: 'Mutual Nondisclosure Agreement',
        table: [
          ['Party 1', 'Larkspur Genomics, Inc., a Delaware corporation'],
          ['Party 2', 'Ferrous Capital LP'],
          ['Effective Date', 'January 12, 2026'],
          ['Term of NDA', '3 years from the Effective Date'],
          ['Governing Law', 'Illinois'],
        ],
        paragraphs: ['Each party will keep the other party’s Confidential Information confidential and use it only for the Purpose.'],
      },
    ]);
    const doc = await upload(owner.token, { name: 'nda.docx', bytes }, 'contract', { fields: { contract_id: id } });
    expect((await settled(owner.token, doc.body.id)).status).to.equal('ready');
    const { terms } = (await api<TermsBody>('GET', `/contracts/${id}/terms`, { token: owner.token })).body;
    expect(terms.parties!.normalized).to.deep.equal(['Larkspur Genomics, Inc.', 'Ferrous Capital LP']);
    expect(terms.parties!.value).to.equal('Larkspur Genomics, Inc. (Party 1) and Ferrous Capital LP (Party 2)');
    expect(terms.parties!.quote).to.match(/^Party 1\s+Larkspur Genomics, Inc\., a Delaware corporation\s+Party 2\s+Ferrous Capital LP$/);
    expect(terms.term_length!.normalized).to.equal(1095);
    expect(terms.term_length!.quote).to.match(/^Term of NDA\s+3 years from the Effective Date$/);
    expect(terms.governing_law).to.include({ normalized: 'Illinois' });
    expect(terms.governing_law!.quote).to.match(/^Governing Law\s+Illinois$/);
    expect(terms.end_date).to.include({ normalized: '2029-01-12' });
  });

  it('answers null with a reason for a term that renews with no start, never a guess', async () => {
    const id = await contract(
      owner,
      'This Services Agreement renews upon expiry of the then-current term for another term of one year unless either party objects in writing.',
    );
    const body = await extract(owner, id);
    expect(body.terms.end_date).to.equal(null);
    expect(body.null_reasons.end_date).to.match(/neither its start nor its length/);
    expect(body.terms.auto_renewal!.normalized).to.equal(true);
    expect(body.opt_out_deadline).to.equal(null);
    expect(body.null_reasons.opt_out_deadline).to.match(/end date is not known/);
  });

  it('dates a start left to the last signature from the signature request completed here', async () => {
    const id = await contract(
      owner,
      'This Pilot Agreement between Harbour Cloud, Inc. and Quayside Foods LLC is effective on the date of the last signature and continues for six (6) months.',
    );
    const before = await extract(owner, id);
    expect(before.terms.end_date).to.equal(null);
    expect(before.null_reasons.end_date).to.match(/last signature, which the text does not date/);
    const sent = await api<{ signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: id, signers: [{ name: 'Ada Signer', email: 'ada@example.test' }] },
    });
    expect(sent.status, sent.text).to.equal(201);
    const token = sent.body.signers[0]!.signing_url.split('/').pop()!;
    const signed = await api('POST', `/signatures/sign/${token}`, { body: { signature_text: 'Ada Signer' }, headers: fromIp(uniqueIp()) });
    expect(signed.status, signed.text).to.equal(200);
    // Completion activates the contract; its terms are extracted again from then on.
    let after: TermsBody | undefined;
    const deadline = Date.now() + 60000;
    while (Date.now() < deadline) {
      after = (await api<TermsBody>('GET', `/contracts/${id}/terms`, { token: owner.token })).body;
      if (after.terms.end_date) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    const signedAt = (await api<{ signed_at: string }>('GET', `/contracts/${id}`, { token: owner.token })).body.signed_at.slice(0, 10);
    expect(after!.terms.effective_date).to.include({ normalized: signedAt });
    expect(after!.terms.effective_date!.derived_from).to.deep.equal(['signature_completed']);
    const end = new Date(`${signedAt}T00:00:00Z`);
    end.setUTCMonth(end.getUTCMonth() + 6);
    expect(after!.terms.end_date!.derived_from).to.deep.equal(['signature_completed', 'initial_term']);
    expect(after!.terms.end_date!.sources!.map((s) => s.from)).to.deep.equal(['last_signature', 'initial_term']);
    expect(String(after!.terms.end_date!.normalized).slice(0, 7)).to.equal(end.toISOString().slice(0, 7));
    expect(after!.null_reasons.end_date).to.equal(undefined);
  });
});
