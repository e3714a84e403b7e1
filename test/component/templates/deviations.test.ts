import { expect } from 'chai';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';

interface Deviation {
  type: string;
  status: 'standard' | 'fallback' | 'non_standard';
  position: number | null;
  found: { page: number; paragraph: number; text: string };
  closest: { position: number; text: string };
  differences: Array<{ op: 'insert' | 'delete'; text: string }>;
}
interface Report {
  model: string;
  clauses: Deviation[];
  missing: Array<{ type: string }>;
}

const LAW =
  'This Agreement and any dispute arising out of it are governed by the laws of the State of {{law}}, without regard to its conflict of laws rules.';
const CAP =
  "Each party's total liability arising out of this Agreement will not exceed the fees paid by the Customer in the twelve months before the event giving rise to the claim.";
const CAP_FALLBACK =
  "Each party's total liability arising out of this Agreement will not exceed two times the fees paid by the Customer in the twelve months before the event giving rise to the claim.";
const CONF =
  'Each party will keep the Confidential Information of the other party in confidence, use it only to perform this Agreement, and disclose it only to its employees and advisers who need to know it and are bound by duties of confidentiality.';
const DPA =
  'The Provider will process Personal Data only on the documented instructions of the Customer and will notify the Customer of any Personal Data Breach without undue delay.';

const PREAMBLE = [
  'MASTER SERVICES AGREEMENT',
  'This Master Services Agreement is entered into by Acme Corp and Northwind Ltd.',
  'The Provider will deliver the Services described in each Order Form.',
];
const contract = async (u: TestUser, paragraphs: string[]) => {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'MSA', type: 'service_agreement', counterparty: 'Northwind', content: [...PREAMBLE, ...paragraphs].join('\n\n') },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
};
const deviations = async (u: TestUser, id: string) => {
  const res = await api<Report>('GET', `/contracts/${id}/deviations`, { token: u.token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};
const byType = (r: Report) => Object.fromEntries(r.clauses.map((c) => [c.type, c]));

describe('deviations from the clause library', function () {
  this.timeout(180000);
  let owner: TestUser;

  before(async () => {
    owner = await signUp();
    const clauses = [
      {
        type: 'governing_law',
        title: 'Governing law',
        preferred: { text: LAW, variables: [{ name: 'law', type: 'text', label: 'Law' }], term_value: 'New York' },
      },
      { type: 'liability_cap', title: 'Limitation of liability', preferred: { text: CAP }, fallbacks: [{ text: CAP_FALLBACK }] },
      { type: 'confidentiality', title: 'Confidentiality', preferred: { text: CONF } },
      { type: 'data_protection', title: 'Data protection', preferred: { text: DPA } },
    ];
    for (const body of clauses) expect((await api('POST', '/clauses', { token: owner.token, body })).status).to.equal(201);
  });

  it('finds each library clause as standard, cited by page and paragraph, with a variable filled in', async () => {
    const id = await contract(owner, [LAW.replace('{{law}}', 'New York'), CAP, CONF, DPA]);
    const r = await deviations(owner, id);
    expect(r.model).to.be.a('string');
    const t = byType(r);
    expect(Object.values(t).map((c) => [c.type, c.status])).to.have.deep.members([
      ['governing_law', 'standard'],
      ['liability_cap', 'standard'],
      ['confidentiality', 'standard'],
      ['data_protection', 'standard'],
    ]);
    expect(t.governing_law!.found).to.deep.include({ page: 1, paragraph: 4 });
    expect(t.liability_cap!.found).to.deep.include({ page: 1, paragraph: 5, text: CAP });
    expect(r.missing).to.deep.equal([]);
  });

  it('names the fallback used, a counterparty edit as non-standard with what differs, and the clause types missing', async () => {
    const edited = CONF.replace(' and are bound by duties of confidentiality', '').replace('in confidence', 'in confidence for two years');
    const id = await contract(owner, [LAW.replace('{{law}}', 'New York'), CAP_FALLBACK, edited]);
    const r = await deviations(owner, id);
    const t = byType(r);
    expect(t.liability_cap).to.deep.include({ status: 'fallback', position: 1 });
    expect(t.confidentiality).to.deep.include({ status: 'non_standard', position: null });
    expect(t.confidentiality!.found).to.deep.include({ page: 1, paragraph: 6 });
    expect(t.confidentiality!.closest.position).to.equal(0);
    expect(t.confidentiality!.differences).to.deep.include({ op: 'insert', text: 'for two years' });
    expect(t.confidentiality!.differences.some((d) => d.op === 'delete' && d.text.includes('bound by duties'))).to.equal(true);
    // The text is the library's with its variable filled in.
    expect(t.governing_law).to.deep.include({ status: 'standard', position: 0 });
    expect(r.missing.map((m) => m.type)).to.deep.equal(['data_protection']);
  });
});
