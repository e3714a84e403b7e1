import { expect } from 'chai';
import { Types } from 'mongoose';
import { testEnv } from '../../support/env';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { authUser } from '../../../services/identity/auth-user';
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

  it('is cleared by every kind of write to users, so changes count on the next request', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const s = testEnv().services;
    const id = member.user.id;
    const org = member.organizationId;
    await warm(member);
    await User.updateOne({ _id: id }, { $set: { role: 'viewer' } });
    expect((await authUser(s, id, org))?.role).to.equal('viewer');
    // A filter without the id: the ids it matched are read before the write.
    await warm(member);
    await User.findOneAndUpdate({ email: member.email }, { $set: { full_name: 'Renamed' } });
    expect((await authUser(s, id, org))?.full_name).to.equal('Renamed');
    await warm(member);
    const doc = await User.findById(id).orFail();
    doc.role = 'admin';
    await doc.save();
    expect((await authUser(s, id, org))?.role).to.equal('admin');
    await warm(member);
    expect(
      (await api('POST', '/contracts', { token: member.token, body: { title: 'T', type: 'nda', counterparty: 'C' } })).status,
    ).to.equal(201);
    await User.deleteMany({ email: member.email });
    expect(await authUser(s, id, org)).to.equal(null);
    expect((await api('GET', '/contracts', { token: member.token })).status).to.equal(401);
  });

  it('never answers for another organization, and a read that raced a write does not refill', async () => {
    const owner = await signUp();
    const s = testEnv().services;
    await warm(owner);
    expect(await authUser(s, owner.user.id, new Types.ObjectId().toHexString())).to.equal(null);
    // After a write the entry is a tombstone: reads go to the store and leave it in place,
    // so a read that began before the write cannot put the older record back.
    await User.updateOne({ _id: owner.user.id }, { $set: { full_name: 'New name' } });
    expect((await authUser(s, owner.user.id, owner.organizationId))?.full_name).to.equal('New name');
    expect(await entry(owner.user.id)).to.equal('-');
  });
});
