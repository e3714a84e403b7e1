import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, enableMfa, fromIp, signUp, uniqueIp, type LoginBody } from '../../support/auth';
import { Event } from '../../../models/event';
import { User } from '../../../models/user';

interface Member {
  id: string;
  email: string;
  full_name: string;
  role: string;
  is_approved: boolean;
  joined_at: string;
}

describe('team', () => {
  it('lists members with the Team member shape; invites join approved and emit team.member_joined', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const res = await api<{ members: Member[]; total: number }>('GET', '/team/members', { token: member.token });
    expect(res.status).to.equal(200);
    expect(res.body.total).to.equal(2);
    const joined = res.body.members.find((m) => m.id === member.user.id)!;
    expect(Object.keys(joined).sort()).to.deep.equal(['email', 'full_name', 'id', 'is_approved', 'joined_at', 'role']);
    expect(joined).to.include({ role: 'member', is_approved: true, email: member.email });
    const event = await Event.findOne({ organization_id: owner.organizationId, type: 'team.member_joined' }).lean();
    expect(event?.data).to.include({ id: member.user.id, email: member.email, role: 'member' });
  });

  it('lets only owners and admins invite; lists pending invites without tokens; 409 for an existing member', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const viewer = await addMember(owner, 'viewer');
    for (const u of [member, viewer]) {
      expect((await api('POST', '/team/invite', { token: u.token, body: { email: 'x@example.test', role: 'viewer' } })).status).to.equal(
        403,
      );
    }
    const admin = await addMember(owner, 'admin');
    const inv = await api('POST', '/team/invite', { token: admin.token, body: { email: 'Pending@Example.test', role: 'member' } });
    expect(inv.status).to.equal(201);
    expect(inv.body).to.include({ email: 'pending@example.test', role: 'member', status: 'pending' });
    expect(inv.body.invite_token).to.be.a('string');
    expect(
      (await api('POST', '/team/invite', { token: admin.token, body: { email: 'boss@example.test', role: 'owner' } })).status,
    ).to.equal(403);
    expect((await api('POST', '/team/invite', { token: owner.token, body: { email: member.email, role: 'viewer' } })).status).to.equal(409);
    expect((await api('POST', '/team/invite', { token: owner.token, body: { email: 'bad', role: 'viewer' } })).status).to.equal(400);
    expect((await api('POST', '/team/invite', { token: owner.token, body: { email: 'a@example.test', role: 'king' } })).status).to.equal(
      400,
    );
    const list = await api<{ invites: Record<string, unknown>[]; total: number }>('GET', '/team/invites', { token: viewer.token });
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(1);
    expect(list.body.invites[0]).to.include({ email: 'pending@example.test', status: 'pending' });
    expect(list.body.invites[0]).to.not.have.property('invite_token');
  });

  it("lets only the invitation's token join: the invited address alone starts an organization of its own", async () => {
    const owner = await signUp();
    const email = `invited-${uniqueIp()}@example.test`;
    const inv = await api<{ invite_token: string }>('POST', '/team/invite', { token: owner.token, body: { email, role: 'admin' } });
    expect(inv.status).to.equal(201);
    const register = (body: Record<string, unknown>) =>
      api<LoginBody>('POST', '/auth/register', {
        body: { password: 'long-enough-1', full_name: 'P', ...body },
        headers: fromIp(uniqueIp()),
      });

    // Someone else's address with the token, or a made-up token: refused.
    expect((await register({ email: `other-${uniqueIp()}@example.test`, invite_token: inv.body.invite_token })).body).to.deep.equal({
      detail: 'email: does not match the invitation',
    });
    expect((await register({ email, invite_token: 'not-the-token' })).body).to.deep.equal({ detail: 'invite_token: invalid or expired' });

    // The invited address without the token: a new organization, owned by whoever registered.
    const reg = await register({ email });
    expect(reg.status).to.equal(201);
    expect(reg.body.user.role).to.equal('owner');
    expect(reg.body.user.organization_id).to.not.equal(owner.organizationId);
    const members = await api<{ members: Member[] }>('GET', '/team/members', { token: owner.token });
    expect(members.body.members.map((m) => m.email)).to.deep.equal([owner.email]);
    expect(await Event.countDocuments({ organization_id: owner.organizationId, type: 'team.member_joined' })).to.equal(0);
  });

  it('never takes role or organization from a registration or settings body', async () => {
    const owner = await signUp();
    const other = await signUp();
    const email = `viewer-${uniqueIp()}@example.test`;
    const inv = await api<{ invite_token: string }>('POST', '/team/invite', { token: owner.token, body: { email, role: 'viewer' } });
    const reg = await api<LoginBody>('POST', '/auth/register', {
      body: {
        email,
        password: 'long-enough-1',
        full_name: 'V',
        invite_token: inv.body.invite_token,
        role: 'owner',
        organization_id: other.organizationId,
      },
      headers: fromIp(uniqueIp()),
    });
    expect(reg.status).to.equal(201);
    expect(reg.body.user).to.include({ organization_id: owner.organizationId, role: 'viewer' });

    const fresh = await api<LoginBody>('POST', '/auth/register', {
      body: {
        email: `new-${uniqueIp()}@example.test`,
        password: 'long-enough-1',
        full_name: 'N',
        role: 'viewer',
        organization_id: other.organizationId,
      },
      headers: fromIp(uniqueIp()),
    });
    expect(fresh.body.user.organization_id).to.not.be.oneOf([owner.organizationId, other.organizationId]);
    expect(fresh.body.user.role).to.equal('owner');

    const org = await api<{ id: string; name: string }>('PUT', '/settings/organization', {
      token: owner.token,
      body: { name: 'Renamed', id: other.organizationId, organization_id: other.organizationId },
    });
    expect(org.body).to.include({ id: owner.organizationId, name: 'Renamed' });
  });

  it('changes roles with owner rules, takes effect at once, and protects the last owner', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const member = await addMember(owner, 'member');
    const put = (by: string, id: string, role: string) => api<Member>('PUT', `/team/members/${id}/role`, { token: by, body: { role } });

    expect((await put(member.token, admin.user.id, 'viewer')).status).to.equal(403);
    expect((await put(admin.token, member.user.id, 'owner')).status).to.equal(403);
    expect((await put(admin.token, owner.user.id, 'member')).status).to.equal(403);
    expect((await put(owner.token, owner.user.id, 'admin')).status).to.equal(409);

    const demoted = await put(admin.token, member.user.id, 'viewer');
    expect(demoted.status).to.equal(200);
    expect(demoted.body.role).to.equal('viewer');
    // The member's existing token now carries viewer rights.
    expect((await api('POST', '/team/invite', { token: member.token, body: { email: 'q@example.test', role: 'viewer' } })).status).to.equal(
      403,
    );

    expect((await put(owner.token, admin.user.id, 'owner')).status).to.equal(200);
    expect((await put(owner.token, owner.user.id, 'admin')).status).to.equal(200); // another owner remains
    expect((await api('DELETE', `/team/members/${admin.user.id}`, { token: owner.token })).status).to.equal(403); // an admin cannot remove an owner
  });

  it('keeps one owner when two owners demote or remove each other at the same moment', async () => {
    for (let round = 0; round < 6; round++) {
      const a = await signUp();
      const b = await addMember(a, 'owner');
      const [byA, byB] =
        round % 2
          ? await Promise.all([
              api('DELETE', `/team/members/${b.user.id}`, { token: a.token }),
              api('DELETE', `/team/members/${a.user.id}`, { token: b.token }),
            ])
          : await Promise.all([
              api('PUT', `/team/members/${b.user.id}/role`, { token: a.token, body: { role: 'admin' } }),
              api('PUT', `/team/members/${a.user.id}/role`, { token: b.token, body: { role: 'admin' } }),
            ]);
      const statuses = [byA.status, byB.status];
      expect(
        await User.countDocuments({ organization_id: a.organizationId, role: 'owner' }),
        `round ${round}: ${statuses.join(', ')}`,
      ).to.equal(1);
      // One change wins; the other meets the last owner (409), or its caller already lost the right (403) or the account (401).
      expect(
        statuses.filter((st) => st < 300),
        `round ${round}`,
      ).to.have.length(1);
      expect(statuses.find((st) => st >= 300)).to.be.oneOf([401, 403, 409]);
    }
  });

  it("lets an owner reset another member's MFA: their sessions end, and the feed records it", async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const member = await addMember(owner, 'member');
    await enableMfa(member);
    const reset = (by: string, id = member.user.id) => api('POST', `/team/members/${id}/mfa/reset`, { token: by });

    const key = await api<{ key: string }>('POST', '/settings/api-keys', { token: owner.token, body: { name: 'ops', role: 'owner' } });
    expect((await reset(admin.token)).status).to.equal(403);
    expect((await reset(key.body.key)).status).to.equal(403);
    expect((await reset(member.token)).status).to.equal(403);
    expect((await reset(owner.token, owner.user.id)).status).to.equal(403);
    expect((await reset((await signUp()).token)).status).to.equal(404);
    const login = () =>
      api<LoginBody & { mfa_required?: boolean }>('POST', '/auth/login', {
        body: { email: member.email, password: member.password },
        headers: fromIp(uniqueIp()),
      });
    expect((await login()).body.mfa_required).to.equal(true);

    expect((await reset(owner.token)).status).to.equal(204);
    expect((await api('GET', '/team/members', { token: member.token })).status).to.equal(401);
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: member.refreshToken } })).status).to.equal(401);
    const fresh = await login();
    expect(fresh.body.mfa_required).to.equal(undefined);
    expect((await api('GET', '/team/members', { token: fresh.body.access_token })).status).to.equal(200);

    const feed = await api<{ activities: { type: string; resource_id: string; actor: { id: string }; summary: string }[] }>(
      'GET',
      '/analytics/activity?type=team.mfa_reset',
      { token: owner.token },
    );
    expect(feed.body.activities).to.have.length(1);
    expect(feed.body.activities[0]).to.deep.include({
      resource_id: member.user.id,
      actor: { type: 'user', id: owner.user.id, name: 'Test Owner' },
    });
    expect(feed.body.activities[0]!.summary).to.equal('Test Owner reset the MFA of Test member');
  });

  it('removes a member: their tokens and API keys stop working; other organizations see 404', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const key = await api<{ key: string }>('POST', '/settings/api-keys', { token: admin.token, body: { name: 'ci', role: 'member' } });
    expect((await api('GET', '/team/members', { token: key.body.key })).status).to.equal(200);

    const other = await signUp();
    expect((await api('DELETE', `/team/members/${admin.user.id}`, { token: other.token })).status).to.equal(404);
    expect((await api('PUT', `/team/members/${admin.user.id}/role`, { token: other.token, body: { role: 'viewer' } })).status).to.equal(
      404,
    );
    expect((await api('DELETE', '/team/members/not-an-id', { token: owner.token })).status).to.equal(404);
    const others = await api<{ members: Member[] }>('GET', '/team/members', { token: other.token });
    expect(others.body.members.map((m) => m.id)).to.deep.equal([other.user.id]);

    expect((await api('DELETE', `/team/members/${owner.user.id}`, { token: owner.token })).status).to.equal(409);
    expect((await api('DELETE', `/team/members/${admin.user.id}`, { token: owner.token })).status).to.equal(204);
    expect((await api('GET', '/team/members', { token: admin.token })).status).to.equal(401);
    expect((await api('GET', '/team/members', { token: key.body.key })).status).to.equal(401);
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: admin.refreshToken } })).status).to.equal(401);
  });
});
