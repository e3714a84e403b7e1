import { expect } from 'chai';
import { Types } from 'mongoose';
import { testEnv } from '../../support/env';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { authUser, forgetUsers } from '../../../services/identity/auth-user';
import { redisKey } from '../../../platform/redis';
import { User } from '../../../models/user';

describe('authentication cache', () => {
  const key = (userId: string) => redisKey(testEnv().config, 'auth-user', userId);
  const entry = (userId: string) => testEnv().services.redis.get(key(userId));
  /** A request with the user's token, once the tombstone of their last write has lapsed. */
  const warm = async (user: TestUser) => {
    await testEnv().services.redis.del(key(user.user.id));
    expect((await api('GET', '/contracts', { token: user.token })).status).to.equal(200);
    expect(JSON.parse((await entry(user.user.id)) ?? 'null')).to.include({ organization_id: user.organizationId });
  };

  it('is cleared by the identity use cases that change a role or end sessions, so changes count on the next request', async () => {
    const owner = await signUp();
    const s = testEnv().services;
    const contract = { title: 'T', type: 'nda', counterparty: 'C' };
    // A role change: the member, now a viewer, may no longer write.
    const member = await addMember(owner, 'member');
    await warm(member);
    const role = await api('PUT', `/team/members/${member.user.id}/role`, { token: owner.token, body: { role: 'viewer' } });
    expect(role.status).to.equal(200);
    expect(await entry(member.user.id)).to.equal('-');
    expect((await authUser(s, member.user.id, member.organizationId))?.role).to.equal('viewer');
    expect((await api('POST', '/contracts', { token: member.token, body: contract })).status).to.equal(403);
    // An MFA reset raises the session epoch: the member's access token stops at once.
    const reset = await addMember(owner, 'member');
    await warm(reset);
    expect((await api('POST', `/team/members/${reset.user.id}/mfa/reset`, { token: owner.token })).status).to.equal(204);
    expect((await api('GET', '/contracts', { token: reset.token })).status).to.equal(401);
    // A removed member's token stops at once.
    const removed = await addMember(owner, 'member');
    await warm(removed);
    expect((await api('DELETE', `/team/members/${removed.user.id}`, { token: owner.token })).status).to.equal(204);
    expect(await authUser(s, removed.user.id, removed.organizationId)).to.equal(null);
    expect((await api('GET', '/contracts', { token: removed.token })).status).to.equal(401);
  });

  it('never answers for another organization, and a read that raced a write does not refill', async () => {
    const owner = await signUp();
    const s = testEnv().services;
    await warm(owner);
    expect(await authUser(s, owner.user.id, new Types.ObjectId().toHexString())).to.equal(null);
    // After a write the entry is a tombstone: reads go to the store and leave it in place,
    // so a read that began before the write cannot put the older record back.
    await User.updateOne({ _id: owner.user.id }, { $set: { full_name: 'New name' } });
    await forgetUsers(s, [owner.user.id]);
    expect((await authUser(s, owner.user.id, owner.organizationId))?.full_name).to.equal('New name');
    expect(await entry(owner.user.id)).to.equal('-');
  });
});
