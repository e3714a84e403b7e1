/**
 * Approvals that hold (issue 38): an approval covers the facts the policies read, not only the
 * document's hash; the gate judges today's policies on today's facts, never on an earlier text's
 * key terms; a change to a fact, a member's term correction included, supersedes the approvals
 * judged on other facts and is refused while a signature request is pending; the sealed PDF
 * and /verify show the facts each approval covered.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api } from '../../support/http';
import { addMember, fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { sealedPdf, tokenOf, waitSealed, type SignatureBody } from '../../support/signatures';

interface Facts {
  type: string;
  value: number | null;
  currency: string;
  counterparty: string;
  vendor: { id: string; name: string; risk: string | null } | null;
  terms: Record<string, { value: string; normalized: unknown } | null>;
  text_reads: Record<string, { value: string; normalized: unknown } | null>;
}
interface Approval {
  id: string;
  status: string;
  version_sha256: string;
  facts: Facts | null;
  facts_sha256: string | null;
  groups: Array<{ step: number; status: string; requirements: Array<{ policy_name: string; reasons: string[] }> }>;
}
type Body<T> = T & { detail?: string };

const NEW_YORK = 'This Agreement is governed by the laws of the State of New York.';
const DELAWARE = 'This Agreement is governed by the laws of the State of Delaware.';

const call = <T = Record<string, unknown>>(u: TestUser, method: string, path: string, body?: unknown) =>
  api<Body<T>>(method, path, { token: u.token, body });

/** A fresh organization: its owner, an admin and a member, and the policies given (added by the owner). */
async function org(...policies: Array<Record<string, unknown>>) {
  const owner = await signUp();
  const [admin, member] = await Promise.all([addMember(owner, 'admin'), addMember(owner, 'member')]);
  for (const p of policies) {
    const res = await call(owner, 'POST', '/settings/approval-policies', p);
    expect(res.status, res.text).to.equal(201);
  }
  return { owner, admin, member };
}

const LARGE = { name: 'Large deals', conditions: { value_over: 1_000_000 }, approvers: { kind: 'role', role: 'owner' } };
const LAW = { name: 'Foreign law', conditions: { governing_law_not_in: ['New York'] }, approvers: { kind: 'role', role: 'owner' } };

async function create(u: TestUser, body: Record<string, unknown>): Promise<string> {
  const res = await call<{ id: string }>(u, 'POST', '/contracts', {
    title: 'Hosting MSA',
    type: 'service_agreement',
    counterparty: 'Northwind',
    content: `The Supplier provides hosting services. ${NEW_YORK}`,
    ...body,
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

const send = (u: TestUser, id: string) =>
  call<SignatureBody>(u, 'POST', '/signatures', { contract_id: id, signers: [{ name: 'Ann Signer', email: 'ann@example.test' }] });
const edit = (u: TestUser, id: string, body: Record<string, unknown>) => call(u, 'PUT', `/contracts/${id}`, body);
const request = async (u: TestUser, id: string) => {
  const res = await call<{ required: boolean; approval: Approval }>(u, 'POST', `/contracts/${id}/approvals`);
  expect(res.status, res.text).to.be.oneOf([200, 201]);
  return res.body.approval;
};
const approve = async (u: TestUser, a: Approval) => {
  const res = await call<Approval>(u, 'POST', `/approvals/${a.id}/approve`);
  expect(res.status, res.text).to.equal(200);
  return res.body;
};
const statusOf = async (u: TestUser, a: Approval) => (await call<Approval>(u, 'GET', `/approvals/${a.id}`)).body.status;

function expectCode(res: { status: number; headers: Headers; text: string }, status: number, code: string) {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('x-error-code'), res.text).to.equal(code);
}

describe('approvals that hold', function () {
  this.timeout(180000);

  it('the value-lowering walk: the send at value 0 is judged on value 0, and the edit back while it is pending answers 409', async () => {
    const { owner, member } = await org(LARGE);
    const id = await create(member, { value: 5_000_000 });
    expectCode(await send(member, id), 409, 'approval_required');

    expect((await edit(member, id, { value: 0 })).status).to.equal(200);
    // No policy applies to a contract worth 0: it may go out, and its record says on what it was judged.
    const sent = await send(member, id);
    expect(sent.status, sent.text).to.equal(201);
    const back = await edit(member, id, { value: 5_000_000 });
    expectCode(back, 409, 'contract_has_pending_signature');
    expect(back.body.detail).to.match(/^value: signature request /);
    expect((await call<{ value: number }>(member, 'GET', `/contracts/${id}`)).body.value).to.equal(0);
    const verify = await call<{ facts_at_sending: Facts; approvals: unknown[] }>(owner, 'GET', `/signatures/${sent.body.id}/verify`);
    expect(verify.body.facts_at_sending).to.include({ value: 0, currency: 'USD', counterparty: 'Northwind' });
    expect(verify.body.approvals).to.deep.equal([]);

    // Other facts are refused too while the request is pending; a title is no fact.
    for (const change of [{ type: 'nda' }, { currency: 'EUR' }, { counterparty: 'Southwind' }])
      expectCode(await edit(member, id, change), 409, 'contract_has_pending_signature');
    expect((await edit(member, id, { title: 'Hosting MSA (final)' })).status).to.equal(200);
    // A text drafted anew is a text change too.
    const drafted = await call(member, 'POST', `/contracts/${id}/draft-ai`, { prompt: 'Hosting services', party_name: 'Acme' });
    expectCode(drafted, 409, 'contract_has_pending_signature');

    // Once the request is cancelled, the value may go back, and then the approval is required again.
    expect((await call(member, 'POST', `/signatures/${sent.body.id}/cancel`)).status).to.equal(200);
    expect((await edit(member, id, { value: 5_000_000 })).status).to.equal(200);
    expectCode(await send(member, id), 409, 'approval_required');
  });

  it('an approval records every fact the policies read and the steps that applied to them', async () => {
    const { owner, member } = await org(LARGE);
    const vendor = await call<{ id: string }>(owner, 'POST', '/vendors', { name: 'Northwind' });
    expect(vendor.status, vendor.text).to.equal(201);
    const assessed = await call<{ risk_level: string }>(owner, 'POST', `/vendors/${vendor.body.id}/risk-assessment`);
    expect(assessed.status, assessed.text).to.equal(200);
    const risk = (await call<{ risk_level: string }>(owner, 'GET', `/vendors/${vendor.body.id}`)).body.risk_level;
    const id = await create(member, { value: 5_000_000, currency: 'EUR', vendor_id: vendor.body.id });
    const a = await request(member, id);
    expect(a.facts).to.deep.include({
      type: 'service_agreement',
      value: 5_000_000,
      currency: 'EUR',
      counterparty: 'Northwind',
      vendor: { id: vendor.body.id, name: 'Northwind', risk },
      text_reads: {},
    });
    expect(a.facts!.terms.governing_law).to.deep.include({ normalized: 'New York' });
    expect(a.facts_sha256).to.match(/^[0-9a-f]{64}$/);
    expect(a.groups.map((g) => [g.step, g.requirements.map((r) => [r.policy_name, r.reasons])])).to.deep.equal([
      [1, [['Large deals', ['value 5000000 is over 1000000']]]],
    ]);
    // The vendor is a fact too: renaming it supersedes the request.
    expect((await call(owner, 'PUT', `/vendors/${vendor.body.id}`, { name: 'Northwind Ltd' })).status).to.equal(200);
    expect(await statusOf(owner, a)).to.equal('superseded');
  });

  it('a change to a fact supersedes open and approved requests, as a text change does', async () => {
    const { owner, member } = await org(LARGE);
    const id = await create(member, { value: 5_000_000 });
    const approved = await approve(owner, await request(member, id));
    expect(approved.status).to.equal('approved');
    expect((await edit(member, id, { currency: 'EUR' })).status).to.equal(200);
    expect(await statusOf(owner, approved)).to.equal('superseded');
    expectCode(await send(member, id), 409, 'approval_required');

    const open = await request(member, id);
    expect(open.id).to.not.equal(approved.id);
    expect(open.facts!.currency).to.equal('EUR');
    expect((await edit(member, id, { counterparty: 'Southwind' })).status).to.equal(200);
    expect(await statusOf(owner, open)).to.equal('superseded');
    expectCode(await call(owner, 'POST', `/approvals/${open.id}/approve`), 409, 'approval_superseded');
  });

  it("the gate re-checks today's policies: an approval obtained under a weaker policy does not let a stronger case out", async () => {
    const { owner, admin, member } = await org({
      name: 'Finance',
      conditions: { value_over: 1_000_000 },
      approvers: { kind: 'role', role: 'admin' },
    });
    const id = await create(member, { value: 5_000_000 });
    expect((await approve(admin, await request(member, id))).status).to.equal('approved');
    const board = await call(owner, 'POST', '/settings/approval-policies', { ...LARGE, name: 'Board' });
    expect(board.status, board.text).to.equal(201);

    const refused = await send(member, id);
    expectCode(refused, 409, 'approval_required');
    expect(refused.body.detail).to.match(/Board: a member with role owner/);
    expect(refused.body.detail).to.match(/is approved but does not cover Board/);
    // Asking again starts a request for what applies now.
    const again = await request(member, id);
    expect(again.groups[0]!.requirements.map((r) => r.policy_name)).to.deep.equal(['Finance', 'Board']);
    await approve(admin, again);
    expect((await approve(owner, again)).status).to.equal('approved');
    expect((await send(member, id)).status).to.equal(201);
  });

  it("never judges on the previous text's key terms: a send right after an edit reads the new text's", async () => {
    const { owner, member } = await org(LAW);
    const id = await create(member, {});
    expect((await call(member, 'POST', `/contracts/${id}/extract`)).status).to.equal(200);
    expect((await call<{ required: boolean }>(member, 'POST', `/contracts/${id}/approvals`)).body.required).to.equal(false);

    expect((await edit(member, id, { content: `The Supplier provides hosting services. ${DELAWARE}` })).status).to.equal(200);
    const refused = await send(member, id);
    expectCode(refused, 409, 'approval_required');
    expect(refused.body.detail).to.match(/Foreign law: .*governing law .*Delaware is not in the accepted list/);
    const terms = await call<{ terms: { governing_law: { normalized: string } } }>(owner, 'GET', `/contracts/${id}/terms`);
    expect(terms.body.terms.governing_law.normalized).to.equal('Delaware');
  });

  it("a member's correction of a term a policy reads makes the contract need approval again", async () => {
    const { owner, member } = await org(LAW);
    const id = await create(member, { content: `The Supplier provides hosting services. ${DELAWARE}` });
    const approved = await approve(owner, await request(member, id));
    expect(approved.status).to.equal('approved');

    const corrected = await call(member, 'PUT', `/contracts/${id}/terms`, {
      terms: { governing_law: { value: 'the laws of the State of New York', normalized: 'New York' } },
    });
    expect(corrected.status, corrected.text).to.equal(200);
    expect(await statusOf(owner, approved)).to.equal('superseded');
    const refused = await send(member, id);
    expectCode(refused, 409, 'approval_required');
    expect(refused.body.detail).to.match(/Foreign law: .*Delaware.*as the text reads; a member's correction says otherwise/);

    // The approver sees both readings, approves them, and then the corrected terms stay while the request is pending.
    const again = await request(member, id);
    expect(again.facts!.terms.governing_law).to.deep.include({ normalized: 'New York' });
    expect(again.facts!.text_reads.governing_law).to.deep.include({ normalized: 'Delaware' });
    await approve(owner, again);
    expect((await send(member, id)).status).to.equal(201);
    const pending = await call(member, 'PUT', `/contracts/${id}/terms`, { terms: { governing_law: null } });
    expectCode(pending, 409, 'contract_has_pending_signature');
    expect(pending.body.detail).to.match(/^terms\.governing_law: /);
  });

  it("the sealed PDF's audit page and /verify show the facts each approval covered", async () => {
    const { owner, member } = await org(LARGE);
    const id = await create(member, { value: 5_000_000, counterparty: 'Contoso Ltd' });
    await approve(owner, await request(member, id));
    const sent = await send(member, id);
    expect(sent.status, sent.text).to.equal(201);
    const signed = await api('POST', `/signatures/sign/${tokenOf(sent.body.signers[0]!.signing_url)}`, {
      body: { signature_text: 'Ann Signer' },
      headers: fromIp(uniqueIp()),
    });
    expect(signed.status, signed.text).to.equal(200);
    await waitSealed(member, sent.body.id);

    const verify = await call<{ valid: boolean; approvals: Array<{ type: string; name: string; facts: Facts }> }>(
      member,
      'GET',
      `/signatures/${sent.body.id}/verify`,
    );
    expect(verify.body.valid, verify.text).to.equal(true);
    expect(verify.body.approvals).to.have.length(1);
    expect(verify.body.approvals[0]!.facts).to.deep.include({
      value: 5_000_000,
      currency: 'USD',
      counterparty: 'Contoso Ltd',
      vendor: null,
    });
    expect(verify.body.approvals[0]!.facts.terms.governing_law).to.deep.include({ normalized: 'New York' });

    const dir = mkdtempSync(path.join(os.tmpdir(), 'approval-facts-'));
    const file = path.join(dir, 'sealed.pdf');
    writeFileSync(file, await sealedPdf(member, sent.body.id));
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8');
    expect(text).to.match(/#1 approved .*Test Owner/);
    expect(text).to.match(/Facts approved: type service_agreement; value 5000000 USD; counterparty Contoso Ltd; vendor none/);
    expect(text).to.match(/Facts approved: key terms: governing_law: .*New York/);
    expect(text).to.match(/Facts judged: type service_agreement; value 5000000 USD/);
  });
});
