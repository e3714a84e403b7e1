/**
 * A member leaves (the team API or SCIM): member-deprovision-<userId> ends their sessions,
 * revokes or hands on their API keys, marks their pending approval decisions removed (moving each
 * step on), and sends team.member_deprovisioned to webhooks and the feed.
 */
import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, fromIp, signUp, type TestUser } from '../../support/auth';
import { startReceiver } from '../../support/receiver';
import { Event } from '../../../models/event';

interface Payload {
  event: string;
  data: Record<string, unknown>;
}

async function listen(owner: TestUser) {
  const receiver = await startReceiver(() => 200);
  const sub = await api('POST', '/webhooks/subscribe', {
    token: owner.token,
    body: { url: `${receiver.url}/hook`, events: ['team.member_deprovisioned'], secret: 'receiver-shared-secret-0123456789' },
  });
  expect(sub.status, sub.text).to.equal(201);
  return receiver;
}

async function keyOf(admin: TestUser) {
  const made = await api<{ id: string; key: string }>('POST', '/settings/api-keys', {
    token: admin.token,
    body: { name: 'ci', role: 'member' },
  });
  expect(made.status, made.text).to.equal(201);
  return made.body;
}

interface ApprovalView {
  status: string;
  groups: Array<{ step: number; status: string; escalated_at: string | null; decisions: Array<{ user_id: string; decision: string }> }>;
}

/** A request on a new contract whose one step needs every member of `approvers`; a member writes and requests it. */
async function requestApproval(owner: TestUser, approvers: TestUser[]): Promise<string> {
  const policy = await api('POST', '/settings/approval-policies', {
    token: owner.token,
    body: {
      name: 'Named approvers',
      step: 1,
      approvers: { kind: 'members', user_ids: approvers.map((a) => a.user.id) },
      reminder_days: 2,
      escalation_days: 5,
      escalate_to_role: 'owner',
    },
  });
  expect(policy.status, policy.text).to.equal(201);
  const requester = await addMember(owner, 'member');
  const c = await api<{ id: string }>('POST', '/contracts', {
    token: requester.token,
    body: { title: 'Supply', type: 'service_agreement', counterparty: 'Acme', content: 'Text.' },
  });
  const started = await api<{ approval: { id: string } }>('POST', `/contracts/${c.body.id}/approvals`, { token: requester.token });
  expect(started.status, started.text).to.equal(201);
  return started.body.approval.id;
}

const keys = async (owner: TestUser) =>
  (await api<{ api_keys: Array<{ id: string; created_by: string }> }>('GET', '/settings/api-keys', { token: owner.token })).body.api_keys;

describe('member deprovisioning', () => {
  it('deactivation through the team API ends every session, hands keys to an owner, tells the webhook; reactivation needs a new sign-in', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const receiver = await listen(owner);
    expect((await api('PUT', '/settings/organization', { token: owner.token, body: { leaver_api_keys: 'transfer' } })).status).to.equal(
      200,
    );
    const key = await keyOf(admin);

    const off = await api('POST', `/team/members/${admin.user.id}/deactivate`, { token: owner.token });
    expect(off.status, off.text).to.equal(200);
    expect((await api('GET', '/team/members', { token: admin.token })).status).to.equal(401);

    await receiver.waitFor(1, 30_000);
    const payload = JSON.parse(receiver.received[0]!.body) as Payload;
    expect(payload.event).to.equal('team.member_deprovisioned');
    expect(payload.data).to.deep.include({ id: admin.user.id, email: admin.email, reason: 'deactivated', sessions_ended: 1 });
    expect(payload.data.api_keys).to.deep.equal({ policy: 'transfer', count: 1 });
    const feed = await Event.findOne({ organization_id: owner.organizationId, type: 'team.member_deprovisioned' }).lean();
    expect(feed?.summary).to.match(/left/);

    const refresh = await api('POST', '/auth/refresh', { body: { refresh_token: admin.refreshToken }, headers: fromIp(admin.ip) });
    expect(refresh.status).to.equal(401);
    // The key now stands for the owner, and works.
    expect((await keys(owner)).find((k) => k.id === key.id)?.created_by).to.equal(owner.user.id);
    expect((await api('GET', '/team/members', { token: key.key })).status).to.equal(200);

    expect((await api('POST', `/team/members/${admin.user.id}/reactivate`, { token: owner.token })).status).to.equal(200);
    expect((await api('GET', '/team/members', { token: admin.token })).status).to.equal(401);
    const login = await api<{ access_token: string }>('POST', '/auth/login', {
      body: { email: admin.email, password: admin.password },
      headers: fromIp(admin.ip),
    });
    expect(login.status, login.text).to.equal(200);
    expect((await api('GET', '/team/members', { token: login.body.access_token })).status).to.equal(200);
  });

  it('a SCIM delete revokes the keys the member made, by default, and the webhook hears reason removed', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const receiver = await listen(owner);
    const key = await keyOf(admin);
    const scim = await api<{ token: string }>('POST', '/settings/scim/token', { token: owner.token });
    const del = await api('DELETE', `/scim/v2/Users/${admin.user.id}`, { token: scim.body.token });
    expect(del.status, del.text).to.equal(204);
    expect((await api('GET', '/team/members', { token: key.key })).status).to.equal(401);
    await receiver.waitFor(1, 30_000);
    const payload = JSON.parse(receiver.received[0]!.body) as Payload;
    expect(payload.data).to.deep.include({ id: admin.user.id, reason: 'removed' });
    expect(payload.data.api_keys).to.deep.equal({ policy: 'revoke', count: 1 });
    expect((await keys(owner)).map((k) => k.id)).to.not.include(key.id);
  });

  it('a leaver named on an approval step is marked removed, and the step completes when the others already approved', async () => {
    const owner = await signUp();
    const leaver = await addMember(owner, 'member');
    const other = await addMember(owner, 'member');
    const receiver = await listen(owner);
    const approvalId = await requestApproval(owner, [leaver, other]);
    const approved = await api<ApprovalView>('POST', `/approvals/${approvalId}/approve`, { token: other.token });
    expect(approved.status, approved.text).to.equal(200);
    expect(approved.body.status).to.equal('pending');

    const off = await api('POST', `/team/members/${leaver.user.id}/deactivate`, { token: owner.token });
    expect(off.status, off.text).to.equal(200);
    await receiver.waitFor(1, 30_000);
    const payload = JSON.parse(receiver.received[0]!.body) as Payload;
    expect(payload.data).to.deep.include({ id: leaver.user.id, approvals_removed: 1 });

    const view = await api<ApprovalView>('GET', `/approvals/${approvalId}`, { token: owner.token });
    expect(view.status, view.text).to.equal(200);
    expect(view.body.status).to.equal('approved');
    expect(view.body.groups[0]!.status).to.equal('approved');
    expect(view.body.groups[0]!.decisions.map((d) => [d.user_id, d.decision])).to.deep.equal([
      [other.user.id, 'approved'],
      [leaver.user.id, 'removed'],
    ]);
  });

  it('a step whose only named approver left escalates to its manager role, who can then approve', async () => {
    const owner = await signUp();
    const leaver = await addMember(owner, 'member');
    const receiver = await listen(owner);
    const approvalId = await requestApproval(owner, [leaver]);

    expect((await api('POST', `/team/members/${leaver.user.id}/deactivate`, { token: owner.token })).status).to.equal(200);
    await receiver.waitFor(1, 30_000);
    expect((JSON.parse(receiver.received[0]!.body) as Payload).data).to.deep.include({ approvals_removed: 1 });

    const view = await api<ApprovalView>('GET', `/approvals/${approvalId}`, { token: owner.token });
    expect(view.body.status).to.equal('pending');
    expect(view.body.groups[0]!.escalated_at).to.be.a('string');
    expect(view.body.groups[0]!.decisions).to.deep.equal([
      { ...view.body.groups[0]!.decisions[0], user_id: leaver.user.id, decision: 'removed' },
    ]);
    const done = await api<ApprovalView>('POST', `/approvals/${approvalId}/approve`, { token: owner.token });
    expect(done.status, done.text).to.equal(200);
    expect(done.body.status).to.equal('approved');
  });
});
