import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { Event } from '../../../models/event';
import { OutgoingMail } from '../../../models/outgoing-mail';

interface Group {
  step: number;
  status: string;
  requirements: Array<{ policy_name: string; reasons: string[]; approvers: { kind: string; role?: string } }>;
  decisions: Array<{ name: string; decision: string; comment: string | null }>;
}
interface Approval {
  id: string;
  status: string;
  version_number: number;
  version_sha256: string;
  groups: Group[];
  override: { reason: string; missing: string[] } | null;
  workflow_id: string;
}
interface Started {
  required: boolean;
  detail?: string;
  approval: Approval;
}

const post = <T = Record<string, unknown>>(u: TestUser, path: string, body: unknown = {}) =>
  api<T & { detail?: string }>('POST', path, { token: u.token, body });

async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (check(v) || i >= 100) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('approvals before signing', function () {
  this.timeout(120000);
  let owner: TestUser;
  let admin: TestUser;
  let legal: TestUser;
  let security: TestUser;
  let viewer: TestUser;
  let financeId: string;

  async function contract(body: Record<string, unknown>, law = 'Texas') {
    const res = await post<{ id: string }>(owner, '/contracts', {
      title: 'Hosting MSA',
      type: 'service_agreement',
      counterparty: 'Northwind',
      content: 'The Supplier provides hosting services.',
      ...body,
    });
    expect(res.status, res.text).to.equal(201);
    const terms = await api('PUT', `/contracts/${res.body.id}/terms`, {
      token: owner.token,
      body: { terms: { governing_law: { value: `the laws of the State of ${law}`, normalized: law } } },
    });
    expect(terms.status, terms.text).to.equal(200);
    return res.body.id;
  }
  const sign = (id: string) =>
    post(owner, '/signatures', { contract_id: id, signers: [{ name: 'Ann Signer', email: 'ann@example.test' }] });

  before(async () => {
    owner = await signUp();
    [admin, legal, security, viewer] = await Promise.all([
      addMember(owner, 'admin'),
      addMember(owner, 'member'),
      addMember(owner, 'member'),
      addMember(owner, 'viewer'),
    ]);
    const finance = await post<{ id: string }>(admin, '/settings/approval-policies', {
      name: 'Finance',
      step: 1,
      conditions: { value_over: 1_000_000 },
      approvers: { kind: 'role', role: 'admin' },
    });
    expect(finance.status, finance.text).to.equal(201);
    financeId = finance.body.id;
    const legalPolicy = await post(owner, '/settings/approval-policies', {
      name: 'Legal',
      step: 2,
      conditions: { terms_differ_from_standard: { governing_law: 'New York' } },
      approvers: { kind: 'members', user_ids: [legal.user.id] },
    });
    expect(legalPolicy.status, legalPolicy.text).to.equal(201);
    const securityPolicy = await post(owner, '/settings/approval-policies', {
      name: 'Security',
      step: 2,
      conditions: { types: ['service_agreement'], value_over: 1_000_000 },
      approvers: { kind: 'any_n_of', n: 1, user_ids: [security.user.id, owner.user.id] },
    });
    expect(securityPolicy.status, securityPolicy.text).to.equal(201);
  });

  it('refuses a malformed rule with the field named, and rule writes by members', async () => {
    const bad = await post(owner, '/settings/approval-policies', {
      name: 'X',
      conditions: { value_over: 'lots' },
      approvers: { kind: 'role', role: 'admin' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.detail).to.match(/^conditions\.value_over: /);
    const typo = await post(owner, '/settings/approval-policies', {
      name: 'X',
      conditions: { value_ovr: 5 },
      approvers: { kind: 'role', role: 'admin' },
    });
    expect(typo.status).to.equal(400);
    expect(typo.body.detail).to.match(/^conditions: .*value_ovr/);
    const n = await post(owner, '/settings/approval-policies', {
      name: 'X',
      approvers: { kind: 'any_n_of', n: 3, user_ids: [legal.user.id] },
    });
    expect(n.body.detail).to.equal('approvers.n: must not exceed the number of user_ids');
    const stranger = await signUp();
    const foreign = await post(owner, '/settings/approval-policies', {
      name: 'X',
      approvers: { kind: 'members', user_ids: [stranger.user.id] },
    });
    expect(foreign.status).to.equal(400);
    expect(foreign.body.detail).to.match(/^approvers\.user_ids: /);
    expect((await post(legal, '/settings/approval-policies', { name: 'X', approvers: { kind: 'role', role: 'admin' } })).status).to.equal(
      403,
    );
    const list = await api<{ policies: Array<{ name: string }> }>('GET', '/settings/approval-policies', { token: viewer.token });
    expect(list.body.policies.map((p) => p.name)).to.deep.equal(['Finance', 'Legal', 'Security']);
    expect((await api<{ total: number }>('GET', '/settings/approval-policies', { token: stranger.token })).body.total).to.equal(0);
  });

  it('answers "none required" when no policy applies, and then lets the contract be sent', async () => {
    // The text says what the correction says: a correction that differs from the text counts too.
    const id = await contract(
      {
        type: 'nda',
        value: 10,
        content: 'The Supplier provides hosting services. This Agreement is governed by the laws of the State of New York.',
      },
      'New York',
    );
    const res = await post<Started>(owner, `/contracts/${id}/approvals`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ required: false });
    expect((await sign(id)).status).to.equal(201);
  });

  it('runs sequential and parallel steps matched by value and by a key term, in order, once per approver, then allows signing', async () => {
    const id = await contract({ value: 2_000_000 });
    const refused = await sign(id);
    expect(refused.status).to.equal(409);
    expect(refused.headers.get('x-error-code')).to.equal('approval_required');
    expect(refused.body.detail).to.match(/Finance: a member with role admin \(value 2000000 is over 1000000\)/);
    expect(refused.body.detail).to.match(/Legal: .*governing_law differs from the standard/);

    // Requested by the owner: the requester does not count as an approver (approvals-duties.test.ts).
    const started = await post<Started>(owner, `/contracts/${id}/approvals`);
    expect(started.status, started.text).to.equal(201);
    const a = started.body.approval;
    expect(a.groups.map((g) => [g.step, g.status, g.requirements.map((r) => r.policy_name)])).to.deep.equal([
      [1, 'active', ['Finance']],
      [2, 'pending', ['Legal', 'Security']],
    ]);
    expect(a.workflow_id).to.equal(`approval-${a.id}`);
    expect((await post<Started>(owner, `/contracts/${id}/approvals`)).body.approval.id, 'asking again answers the same').to.equal(a.id);

    const early = await post(legal, `/approvals/${a.id}/approve`);
    expect(early.status).to.equal(409);
    expect(early.headers.get('x-error-code')).to.equal('approval_out_of_order');
    expect((await post(viewer, `/approvals/${a.id}/approve`)).status).to.equal(403);
    const stranger = await signUp();
    expect((await post(stranger, `/approvals/${a.id}/approve`)).status).to.equal(404);
    const stale = await post(admin, `/approvals/${a.id}/approve`, { version_sha256: '0'.repeat(64) });
    expect(stale.status).to.equal(409);
    expect(stale.headers.get('x-error-code')).to.equal('approval_stale_version');

    const mail = await eventually(
      () => OutgoingMail.find({ kind: 'approval_request', 'ref.approval_id': a.id }).lean(),
      (m) => m.some((x) => x.to === admin.email),
    );
    expect(mail.map((m) => m.to)).to.include(admin.email);

    const first = await post<Approval>(admin, `/approvals/${a.id}/approve`, { version_sha256: a.version_sha256, comment: 'Budgeted' });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.groups.map((g) => g.status)).to.deep.equal(['approved', 'active']);
    expect(first.body.groups[0]!.decisions[0]).to.include({ decision: 'approved', comment: 'Budgeted' });
    // Named in no step now active nor waiting: 403.
    const outsider = await post(admin, `/approvals/${a.id}/approve`);
    expect(outsider.status).to.equal(403);
    expect(outsider.headers.get('x-error-code')).to.equal('approval_not_approver');

    const inbox = async (u: TestUser) =>
      (await api<{ approvals: Approval[] }>('GET', '/approvals?assigned_to=me', { token: u.token })).body.approvals.map((x) => x.id);
    expect(await inbox(legal)).to.include(a.id);
    expect(await inbox(security)).to.include(a.id);
    expect(await inbox(admin)).to.not.include(a.id);

    expect((await post(legal, `/approvals/${a.id}/approve`)).status).to.equal(200);
    const twice = await post(legal, `/approvals/${a.id}/approve`);
    expect(twice.status).to.equal(409);
    expect(twice.headers.get('x-error-code')).to.equal('approval_already_decided');
    expect(await inbox(legal)).to.not.include(a.id);
    expect((await sign(id)).status, 'step 2 is not done').to.equal(409);

    const done = await post<Approval>(security, `/approvals/${a.id}/approve`);
    expect(done.body.status).to.equal('approved');
    expect(done.body.groups.map((g) => g.status)).to.deep.equal(['approved', 'approved']);
    const types = (await Event.find({ resource_id: a.id }).sort({ occurred_at: 1 }).lean()).map((e) => e.type);
    expect(types).to.deep.equal([
      'approval.requested',
      'approval.approved',
      'approval.approved',
      'approval.approved',
      'approval.completed',
    ]);
    expect((await sign(id)).status).to.equal(201);
  });

  it('supersedes an open request when the text changes, and approves the new version from the first step again', async () => {
    const id = await contract({ value: 2_000_000 });
    const a = (await post<Started>(owner, `/contracts/${id}/approvals`)).body.approval;
    expect((await post(admin, `/approvals/${a.id}/approve`)).status).to.equal(200);
    expect(
      (await api('PUT', `/contracts/${id}`, { token: owner.token, body: { content: 'The Supplier provides hosting and backups.' } }))
        .status,
    ).to.equal(200);
    const old = await api<Approval>('GET', `/approvals/${a.id}`, { token: owner.token });
    expect(old.body.status).to.equal('superseded');
    const late = await post(legal, `/approvals/${a.id}/approve`);
    expect(late.status).to.equal(409);
    expect(late.headers.get('x-error-code')).to.equal('approval_superseded');
    expect((await sign(id)).status).to.equal(409);

    const again = await post<Started>(owner, `/contracts/${id}/approvals`);
    expect(again.status).to.equal(201);
    expect(again.body.approval.id).to.not.equal(a.id);
    expect(again.body.approval.version_number).to.equal(2);
    expect(again.body.approval.groups.map((g) => g.status)).to.deep.equal(['active', 'pending']);
  });

  it('closes a request on rejection, and keeps the rule a request started with when the policy changes', async () => {
    const id = await contract({ value: 2_000_000 });
    const a = (await post<Started>(owner, `/contracts/${id}/approvals`)).body.approval;
    const changed = await api('PUT', `/settings/approval-policies/${financeId}`, {
      token: owner.token,
      body: { name: 'Finance', step: 1, conditions: { value_over: 1_000_000 }, approvers: { kind: 'role', role: 'owner' } },
    });
    expect(changed.status, changed.text).to.equal(200);
    const rejected = await post<Approval>(admin, `/approvals/${a.id}/reject`, { comment: 'Over budget' });
    expect(rejected.status, rejected.text).to.equal(200);
    expect(rejected.body.status).to.equal('rejected');
    expect(rejected.body.groups[0]!.requirements[0]!.approvers).to.deep.equal({ kind: 'role', role: 'admin' });
    expect((await sign(id)).status).to.equal(409);
    expect(await Event.countDocuments({ resource_id: a.id, type: 'approval.rejected' })).to.equal(1);
    await api('PUT', `/settings/approval-policies/${financeId}`, {
      token: owner.token,
      body: { name: 'Finance', step: 1, conditions: { value_over: 1_000_000 }, approvers: { kind: 'role', role: 'admin' } },
    });
  });

  it('lets only an owner override, with a reason kept on the request and in the feed', async () => {
    const id = await contract({ value: 2_000_000 });
    expect((await post(admin, `/contracts/${id}/approvals/override`, { reason: 'Urgent' })).status).to.equal(403);
    const noReason = await post(owner, `/contracts/${id}/approvals/override`, {});
    expect(noReason.status).to.equal(400);
    expect(noReason.body.detail).to.match(/^reason: /);
    const res = await post<Approval>(owner, `/contracts/${id}/approvals/override`, { reason: 'Board approved on the call' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('overridden');
    expect(res.body.override!.reason).to.equal('Board approved on the call');
    expect(res.body.override!.missing.join(' ')).to.match(/step 1 .*Finance/);
    const feed = await Event.findOne({ resource_id: res.body.id, type: 'approval.completed' }).lean();
    expect(feed?.data).to.include({ override_reason: 'Board approved on the call', status: 'overridden' });
    const sent = await sign(id);
    expect(sent.status).to.equal(201);
    // The override is in the request's audit trail, which the sealed PDF's audit page prints and /verify shows.
    const verify = await api<{ approvals: Array<{ type: string; name: string; detail: string }> }>(
      'GET',
      `/signatures/${String(sent.body.id)}/verify`,
      {
        token: owner.token,
      },
    );
    expect(verify.body.approvals).to.have.length(1);
    expect(verify.body.approvals[0]).to.include({ type: 'approval_overridden', name: 'Test Owner' });
    expect(verify.body.approvals[0]!.detail).to.equal(`reason: Board approved on the call; version 1, sha256 ${res.body.version_sha256}`);
  });
});
