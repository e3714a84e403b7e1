import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makeDocx, settled, upload } from '../../support/documents';
import { KEY_TERMS } from '../../../services/contracts/key-terms.shared';
import { startFakeGemini, textResponse, type GeminiAnswer, type GeminiCall } from '../../support/gemini';
import { testEnv, testEnvironment, withSecondApi } from '../../support/env';
import { loadConfig } from '../../../platform/config';
import { createAi } from '../../../platform/ai';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Event } from '../../../models/event';
import { Types } from 'mongoose';
import { ContractTerms } from '../../../models/contract-terms';

interface Term {
  value: string;
  normalized: unknown;
  quote: string;
  page: number;
  confidence: number;
  confirmed: boolean;
}
interface TermsBody {
  contract_id: string;
  extracted_at: string | null;
  terms: Record<string, Term | null>;
}

const COVER = [
  'This Order Form incorporates the Framework Terms between Harbour Cloud, Inc. and Quayside Foods LLC.',
  'Effective Date',
  'March 1, 2026',
  'Governing Law',
  'The laws of the State of Delaware',
  'Chosen Courts',
  'The courts (whether state, federal, or otherwise) located in Wilmington, Delaware',
];
const TERMS = [
  'For each Order Form, the Agreement will start on the Order Date, continue through the Subscription Period, and automatically renew for additional Subscription Periods unless one party gives notice of non-renewal.',
  'Customer will pay each invoice within 45 days from the invoice date.',
];

async function contract(u: TestUser, content = '') {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'Harbour hosting', type: 'service_agreement', counterparty: 'Harbour Cloud, Inc.', content },
  });
  expect(res.status).to.equal(201);
  return res.body.id;
}

describe('contract key terms', function () {
  this.timeout(90000);
  let owner: TestUser;
  let contractId: string;

  before(async () => {
    owner = await signUp();
    contractId = await contract(owner);
  });

  it('extracts them when a contract document attached to the contract becomes ready, each quoted verbatim with its page', async () => {
    const bytes = await makeDocx([
      { heading: 'Key Terms', paragraphs: COVER },
      { heading: 'Term & Termination', paragraphs: TERMS, newPage: true },
    ]);
    const doc = await upload(owner.token, { name: 'harbour.docx', bytes }, 'contract', { fields: { contract_id: contractId } });
    expect((await settled(owner.token, doc.body.id)).status).to.equal('ready');
    const res = await api<TermsBody>('GET', `/contracts/${contractId}/terms`, { token: owner.token });
    expect(res.status).to.equal(200);
    expect(res.body.contract_id).to.equal(contractId);
    expect(res.body.extracted_at).to.be.a('string');
    expect(Object.keys(res.body.terms)).to.have.members([...KEY_TERMS]);
    const t = res.body.terms;
    expect(t.parties).to.include({ page: 1, confirmed: false });
    expect(t.parties!.normalized).to.deep.equal(['Harbour Cloud, Inc.', 'Quayside Foods LLC']);
    expect(t.effective_date!.normalized).to.equal('2026-03-01');
    expect(t.governing_law).to.include({
      value: 'the State of Delaware',
      normalized: 'Delaware',
      // The row is cited: its label and its value.
      quote: 'Governing Law\nThe laws of the State of Delaware',
      page: 1,
    });
    expect(t.dispute_venue!.normalized).to.equal('Wilmington, Delaware');
    expect(t.auto_renewal).to.include({ normalized: true, page: 2 });
    expect(t.payment_terms).to.include({
      normalized: 45,
      quote: 'Customer will pay each invoice within 45 days from the invoice date.',
      page: 2,
    });
    // What the text does not say is null.
    expect(t.liability_cap).to.equal(null);
    expect(t.termination_for_convenience).to.equal(null);
    for (const term of Object.values(t)) if (term) expect(term.confidence).to.be.within(0, 1);
  });

  it("keeps a member's confirmed or corrected term through later extractions; null clears one", async () => {
    const member = await addMember(owner, 'member');
    const put = await api<TermsBody>('PUT', `/contracts/${contractId}/terms`, {
      token: member.token,
      body: {
        terms: {
          governing_law: { value: 'the State of New York', normalized: 'New York' },
          payment_terms: { confirmed: true },
          dispute_venue: null,
        },
      },
    });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.terms.governing_law).to.include({
      value: 'the State of New York',
      normalized: 'New York',
      confirmed: true,
      confidence: 1,
    });
    expect(put.body.terms.payment_terms).to.include({ normalized: 45, confirmed: true });
    expect(put.body.terms.dispute_venue).to.equal(null);
    const again = await api<TermsBody>('POST', `/contracts/${contractId}/extract`, { token: owner.token });
    expect(again.status).to.equal(200);
    expect(again.body.terms.governing_law).to.include({ normalized: 'New York', confirmed: true });
    expect(again.body.terms.dispute_venue!.normalized).to.equal('Wilmington, Delaware'); // not confirmed: extracted again
    expect(
      (
        await api('PUT', `/contracts/${contractId}/terms`, {
          token: member.token,
          body: { terms: { payment_terms: { normalized: 'soon' } } },
        })
      ).status,
    ).to.equal(400);
    const viewer = await addMember(owner, 'viewer');
    expect((await api('PUT', `/contracts/${contractId}/terms`, { token: viewer.token, body: { terms: {} } })).status).to.equal(403);
    expect((await api('GET', `/contracts/${contractId}/terms`, { token: viewer.token })).status).to.equal(200);
  });

  it('refuses an unknown term key with 400 naming it, and changes nothing', async () => {
    const before = await api<TermsBody>('GET', `/contracts/${contractId}/terms`, { token: owner.token });
    const res = await api<{ detail: string }>('PUT', `/contracts/${contractId}/terms`, {
      token: owner.token,
      body: { terms: { governing_law: { value: 'the State of Ohio' }, governing_lwa: { value: 'the State of Ohio' } } },
    });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.detail).to.match(/^terms: unknown key term "governing_lwa"; the keys are parties, /);
    const after = await api<TermsBody>('GET', `/contracts/${contractId}/terms`, { token: owner.token });
    expect(after.body.terms).to.deep.equal(before.body.terms);
  });

  it('answers 200 to extractions racing to create the first terms record, and keeps one record', async () => {
    // Created without text, so nothing extracts in the background: the racers are these requests alone.
    const id = await contract(owner);
    const racers = await Promise.all(
      Array.from({ length: 8 }, () => api<TermsBody>('POST', `/contracts/${id}/extract`, { token: owner.token })),
    );
    expect(racers.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
    const records = await ContractTerms.countDocuments({ contract_id: new Types.ObjectId(id) });
    expect(records).to.equal(1);
  });

  it("extracts again when the contract's content changes (through the event relay)", async () => {
    const id = await contract(owner, 'Draft terms to follow.');
    const changed = await api('PUT', `/contracts/${id}`, {
      token: owner.token,
      body: {
        content:
          'This Agreement is governed by the laws of the State of Texas. Either party may terminate this Agreement for any or no reason upon 30 days notice.',
      },
    });
    expect(changed.status).to.equal(200);
    let terms: TermsBody['terms'] = {};
    for (let i = 0; i < 100 && !terms.governing_law; i++) {
      await new Promise((r) => setTimeout(r, 200));
      terms = (await api<TermsBody>('GET', `/contracts/${id}/terms`, { token: owner.token })).body.terms;
    }
    expect(terms.governing_law?.normalized).to.equal('Texas');
    expect(terms.termination_for_convenience?.normalized).to.equal(true);
  });

  it('extracts when a contract is created with text, and starts nothing for one created without', async () => {
    const { services } = testEnv();
    const workflowOf = async (id: string) => {
      let event = await Event.findOne({ type: 'contract.created', resource_id: id }).lean();
      for (let i = 0; i < 100 && !event?.relayed_at; i++) {
        await new Promise((r) => setTimeout(r, 100));
        event = await Event.findOne({ type: 'contract.created', resource_id: id }).lean();
      }
      expect(event?.relayed_at).to.be.instanceOf(Date);
      return services.temporal.workflow.getHandle(`terms-${event!._id.toHexString()}`);
    };
    const withText = await contract(owner, 'This Agreement is governed by the laws of the State of Texas.');
    await (await workflowOf(withText)).result();
    const extracted = (await api<TermsBody>('GET', `/contracts/${withText}/terms`, { token: owner.token })).body;
    expect(extracted.terms.governing_law?.normalized).to.equal('Texas');

    const empty = await contract(owner);
    const none = await (await workflowOf(empty)).describe().then(
      () => 'started',
      (err: unknown) => (err instanceof WorkflowNotFoundError ? 'none' : err),
    );
    expect(none).to.equal('none');
    expect((await api<TermsBody>('GET', `/contracts/${empty}/terms`, { token: owner.token })).body.extracted_at).to.equal(null);
  });

  it("lists renewals whose opt-out deadline is near (not taken for a contract id), only the organization's", async () => {
    const end = new Date(Date.now() + 40 * 86_400_000);
    const endText = end.toLocaleDateString('en-US', { timeZone: 'UTC', month: 'long', day: 'numeric', year: 'numeric' });
    const id = await contract(
      owner,
      `This Agreement ends on ${endText} and renews automatically unless either party gives notice at least 30 days before the end of the current term.`,
    );
    expect((await api('POST', `/contracts/${id}/extract`, { token: owner.token })).status).to.equal(200);
    const deadline = new Date(Date.parse(`${end.toISOString().slice(0, 10)}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
    const soon = await api<{ renewals: Array<Record<string, unknown>>; total: number }>('GET', '/contracts/renewals?within_days=30', {
      token: owner.token,
    });
    expect(soon.status, soon.text).to.equal(200);
    expect(soon.body.renewals.find((r) => r.contract_id === id)).to.include({
      opt_out_deadline: deadline,
      days_left: 10,
      non_renewal_notice_days: 30,
      end_date: end.toISOString().slice(0, 10),
    });
    const tooSoon = await api<{ renewals: Array<{ contract_id: string }> }>('GET', '/contracts/renewals?within_days=5', {
      token: owner.token,
    });
    expect(tooSoon.body.renewals.map((r) => r.contract_id)).to.not.include(id);
    expect((await api('GET', '/contracts/renewals?within_days=-1', { token: owner.token })).status).to.equal(400);
    const stranger = await signUp();
    expect((await api<{ total: number }>('GET', '/contracts/renewals', { token: stranger.token })).body.total).to.equal(0);
    expect((await api('GET', `/contracts/${id}/terms`, { token: stranger.token })).status).to.equal(404);
    expect((await api('POST', `/contracts/${id}/extract`, { token: stranger.token })).status).to.equal(404);
  });

  it("lets an owner set the organization's renewal reminder days", async () => {
    const res = await api<{ renewal_reminder_days: number[] }>('PUT', '/settings/organization', {
      token: owner.token,
      body: { renewal_reminder_days: [10, 45, 10] },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.renewal_reminder_days).to.deep.equal([45, 10]);
    expect((await api('PUT', '/settings/organization', { token: owner.token, body: { renewal_reminder_days: [0] } })).status).to.equal(400);
  });
});

describe('contract key terms with Gemini (a local server speaking its API)', function () {
  this.timeout(90000);
  const LAW = 'This Services Agreement is governed by the laws of the State of New York';
  const PAY = 'Customer will pay each invoice within 30 days from the invoice date';
  const CONTENT = `${LAW}. ${PAY}. Either party may terminate this Agreement for any or no reason upon 60 days notice.`;
  const none = Object.fromEntries(KEY_TERMS.map((k) => [k, null]));
  let reply: (call: GeminiCall) => GeminiAnswer;
  let gemini: Awaited<ReturnType<typeof startFakeGemini>>;
  let owner: TestUser;

  before(async () => {
    gemini = await startFakeGemini((call) => reply(call));
    owner = await signUp();
  });
  after(() => gemini.close());

  /** POST /contracts/:id/extract on an API whose AI provider is Gemini at the fake's address. */
  async function extractWithGemini(answer: (call: GeminiCall) => GeminiAnswer, content = CONTENT): Promise<TermsBody['terms']> {
    reply = answer;
    const id = await contract(owner, content);
    const config = loadConfig({ ...testEnvironment(), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url, GEMINI_TIMEOUT_MS: '5000' });
    let terms: TermsBody['terms'] = {};
    await withSecondApi(
      {},
      async (base) => {
        const res = await fetch(`${base}/contracts/${id}/extract`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` } });
        const body = (await res.json()) as TermsBody;
        expect(res.status, JSON.stringify(body)).to.equal(200);
        terms = body.terms;
      },
      { ai: createAi(config, testEnv().services.logger) },
    );
    return terms;
  }

  const json = (terms: Record<string, unknown>): GeminiAnswer => ({
    status: 200,
    json: textResponse(JSON.stringify({ ...none, ...terms })),
  });

  it('asks for schema-shaped JSON and keeps the terms it quotes verbatim; keys it leaves out come from the rules', async () => {
    gemini.calls.length = 0;
    const terms = await extractWithGemini(() =>
      json({
        governing_law: { value: 'the laws of the State of New York', normalized: 'New York', quote: LAW, page: 1 },
        payment_terms: { value: 'within 30 days from the invoice date', normalized: 30, quote: PAY, page: 1 },
      }),
    );
    const call = gemini.calls.find((c) => c.method === 'generateContent')!;
    const generation = call.body.generationConfig as {
      responseMimeType: string;
      responseJsonSchema: { properties: Record<string, unknown> };
    };
    expect(generation.responseMimeType).to.equal('application/json');
    expect(Object.keys(generation.responseJsonSchema.properties)).to.have.members([...KEY_TERMS]);
    expect(JSON.stringify(call.body.contents)).to.contain(PAY);
    expect(terms.governing_law).to.include({ normalized: 'New York', quote: LAW, page: 1, confidence: 0.8, confirmed: false });
    expect(terms.payment_terms).to.include({ normalized: 30, quote: PAY });
    // The model said nothing of it; the rules found it in the text.
    expect(terms.termination_for_convenience?.normalized).to.equal(true);
  });

  it('rejects a quote the contract does not have, and the rules answer that key', async () => {
    const invented = 'This Agreement is governed by the laws of England and Wales';
    const terms = await extractWithGemini(() =>
      json({ governing_law: { value: 'the laws of England and Wales', normalized: 'England and Wales', quote: invented, page: 1 } }),
    );
    expect(terms.governing_law?.quote).not.to.equal(invented);
    expect(terms.governing_law?.normalized).to.equal('New York');
    expect(CONTENT).to.contain(terms.governing_law!.quote);
  });

  it('keeps a term only when its quote is at least a phrase and states the value, compared loosely', async () => {
    const terms = await extractWithGemini(() =>
      json({
        // Verbatim on the page, but two words prove nothing about where the law is chosen.
        governing_law: { value: 'New York', normalized: 'New York', quote: 'New York', page: 1 },
        // A real sentence of the contract, but it does not say 45 days.
        payment_terms: { value: 'within 45 days', normalized: 45, quote: PAY, page: 1 },
        // Case, curly quotes and a trailing stop aside, the quote says it.
        termination_for_convenience: {
          value: 'Either Party may terminate this Agreement for any or no reason.',
          normalized: true,
          quote: 'Either party may terminate this Agreement for any or no reason upon 60 days notice',
          page: 1,
        },
      }),
    );
    expect(terms.governing_law).to.include({ normalized: 'New York', quote: `${LAW}.` }); // the rules' own, whole sentence
    expect(terms.governing_law!.confidence).to.not.equal(0.8);
    expect(terms.payment_terms).to.include({ normalized: 30 }); // the rules' answer
    expect(terms.termination_for_convenience).to.include({ normalized: true, confidence: 0.8 }); // the model's
  });

  it("takes no typed value on the model's word: the rules read it from its quote, or their answer stands", async () => {
    const RENEWAL =
      'This Agreement renews automatically for successive one-year terms unless either party gives notice of non-renewal at least 90 days before the end of the then-current term';
    const content = `${CONTENT} ${RENEWAL}.`;
    const terms = await extractWithGemini(
      () =>
        json({
          // The quote says 90 days and automatic renewal; the model's typed values say otherwise.
          non_renewal_notice_days: { value: '90 days', normalized: 9, quote: RENEWAL, page: 1 },
          auto_renewal: { value: 'renews automatically', normalized: false, quote: RENEWAL, page: 1 },
          // A real sentence stating "30 days", but not a payment term of 3,000 days.
          payment_terms: { value: '30 days', normalized: 3000, quote: PAY, page: 1 },
          // The quote names New York; the typed place is another.
          governing_law: { value: 'the laws of the State of New York', normalized: 'Delaware', quote: LAW, page: 1 },
        }),
      content,
    );
    expect(terms.non_renewal_notice_days).to.include({ normalized: 90, quote: RENEWAL, confidence: 0.8 });
    expect(terms.auto_renewal).to.include({ normalized: true, quote: RENEWAL });
    expect(terms.payment_terms).to.include({ normalized: 30 });
    expect(terms.governing_law).to.include({ normalized: 'New York' });

    const misplaced = await extractWithGemini(
      () => json({ non_renewal_notice_days: { value: '30 days', normalized: 30, quote: PAY, page: 1 } }),
      content,
    );
    // The payment sentence yields no notice period: the rules read the renewal sentence instead.
    expect(misplaced.non_renewal_notice_days).to.include({ normalized: 90 });
    expect(misplaced.non_renewal_notice_days!.quote).to.contain('notice of non-renewal');
  });

  it('falls back to the rules on JSON off the schema and on a 5xx, never a 500', async () => {
    for (const answer of [
      (): GeminiAnswer => ({ status: 200, json: textResponse('{"governing_law": "not an object"') }),
      (): GeminiAnswer => ({ status: 503, json: { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } } }),
    ]) {
      const terms = await extractWithGemini(answer);
      expect(terms.governing_law?.normalized).to.equal('New York');
      expect(terms.payment_terms?.normalized).to.equal(30);
    }
  });
});
