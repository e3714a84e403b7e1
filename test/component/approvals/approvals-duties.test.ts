/**
 * Separation of duties (issue 38): the member who requested an approval and the author of the
 * version under review do not count as approvers unless the policy says `allow_self_approval`,
 * and decisions come from people, never from an API key.
 */
import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';

interface Approval {
  id: string;
  status: string;
  version_author_id: string | null;
  requested_by: string | null;
}
type Body<T> = T & { detail?: string };

const call = <T = Record<string, unknown>>(u: TestUser | string, method: string, path: string, body?: unknown) =>
  api<Body<T>>(method, path, { token: typeof u === 'string' ? u : u.token, body });

function expectCode(res: { status: number; headers: Headers; text: string }, status: number, code: string) {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('x-error-code'), res.text).to.equal(code);
}

describe('separation of duties in approvals', function () {
  this.timeout(120000);
  let owner: TestUser;
  let requester: TestUser;
  let author: TestUser;
  let member: TestUser;
  let policyId: string;
  const policy = { name: 'Finance', conditions: { value_over: 1_000_000 }, approvers: { kind: 'role', role: 'admin' } };

  async function contract(by: TestUser): Promise<string> {
    const res = await call<{ id: string }>(by, 'POST', '/contracts', {
      title: 'Hosting MSA',
      type: 'service_agreement',
      counterparty: 'Northwind',
      content: 'The Supplier provides hosting services.',
      value: 2_000_000,
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  }
  const request = async (by: TestUser, id: string) => {
    const res = await call<{ approval: Approval }>(by, 'POST', `/contracts/${id}/approvals`);
    expect(res.status, res.text).to.equal(201);
    return res.body.approval;
  };
  const inbox = async (u: TestUser) =>
    (await call<{ approvals: Approval[] }>(u, 'GET', '/approvals?assigned_to=me')).body.approvals.map((a) => a.id);

  before(async () => {
    owner = await signUp();
    [requester, author, member] = await Promise.all([addMember(owner, 'admin'), addMember(owner, 'admin'), addMember(owner, 'member')]);
    const res = await call<{ id: string }>(owner, 'POST', '/settings/approval-policies', policy);
    expect(res.status, res.text).to.equal(201);
    policyId = res.body.id;
  });

  it('the requester and the author of the version do not count as approvers, unless the policy allows self-approval', async () => {
    const id = await contract(member);
    // The version under review is the author's: an admin rewrote the text.
    const edited = await call(author, 'PUT', `/contracts/${id}`, { content: 'The Supplier provides hosting and backups.' });
    expect(edited.status, edited.text).to.equal(200);
    const a = await request(requester, id);
    for (const self of [requester, author]) {
      const refused = await call(self, 'POST', `/approvals/${a.id}/approve`);
      expectCode(refused, 403, 'approval_self_approval');
      expect(refused.body.detail).to.match(/requested this approval or wrote the version under review/);
    }
    expect(a.requested_by).to.equal(requester.user.id);
    expect(a.version_author_id).to.equal(author.user.id);
    expect(await inbox(requester)).to.not.include(a.id);
    expect(await inbox(author)).to.not.include(a.id);
    expect(await inbox(owner)).to.include(a.id);
    const approved = await call<Approval>(owner, 'POST', `/approvals/${a.id}/approve`);
    expect(approved.status, approved.text).to.equal(200);
    expect(approved.body.status).to.equal('approved');

    const allowed = await call<{ allow_self_approval: boolean }>(owner, 'PUT', `/settings/approval-policies/${policyId}`, {
      ...policy,
      allow_self_approval: true,
    });
    expect(allowed.status, allowed.text).to.equal(200);
    expect(allowed.body.allow_self_approval).to.equal(true);
    const own = await request(requester, await contract(requester));
    const self = await call<Approval>(requester, 'POST', `/approvals/${own.id}/approve`);
    expect(self.status, self.text).to.equal(200);
    expect(self.body.status).to.equal('approved');
    await call(owner, 'PUT', `/settings/approval-policies/${policyId}`, policy);
  });

  it('an API key can neither approve nor reject: decisions come from people', async () => {
    const key = await call<{ key: string }>(owner, 'POST', '/settings/api-keys', { name: 'automation', role: 'admin' });
    expect(key.status, key.text).to.equal(201);
    const a = await request(member, await contract(member));
    for (const verb of ['approve', 'reject']) {
      const refused = await call(key.body.key, 'POST', `/approvals/${a.id}/${verb}`);
      expectCode(refused, 403, 'approval_needs_person');
      expect(refused.body.detail).to.match(/decided by people/);
    }
    expect((await call<Approval>(owner, 'GET', `/approvals/${a.id}`)).body.status).to.equal('pending');
  });
});
