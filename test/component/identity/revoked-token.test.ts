import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { testEnv } from '../../support/env';
import { waitFor } from '../../support/processes';
import { isTokenIdRevoked, revokeTokenId } from '../../../services/identity/revoked-token';
import { redisKey } from '../../../platform/redis';
import { RevokedToken } from '../../../models/revoked-token';

describe('token blacklist', () => {
  const key = () => redisKey(testEnv().config, 'revoked-jtis');
  const inAnHour = () => new Date(Date.now() + 3_600_000);
  /** Until the background load has marked Redis's copy complete. */
  const loaded = async () => {
    await isTokenIdRevoked(testEnv().services, randomUUID());
    await waitFor(
      async () => Number(await testEnv().services.redis.zscore(key(), 'complete-until')) > Date.now(),
      5000,
      'blacklist copy in Redis',
    );
  };

  it('answers from its Redis copy once complete, so a valid token costs no store read', async () => {
    const s = testEnv().services;
    await loaded();
    // Written to the store behind the blacklist's back: the complete copy does not ask it.
    const unseen = randomUUID();
    await RevokedToken.create({ jti: unseen, expires_at: inAnHour(), reason: 'logout' });
    expect(await isTokenIdRevoked(s, unseen)).to.equal(false);
    // A revocation made through it is in the copy at once.
    const revoked = randomUUID();
    expect(await revokeTokenId(s, revoked, inAnHour(), 'logout')).to.equal(true);
    expect(await isTokenIdRevoked(s, revoked)).to.equal(true);
    expect(await revokeTokenId(s, revoked, inAnHour(), 'logout')).to.equal(false);
  });

  it('asks the store when Redis lost the copy or its mark lapsed, and loads the copy again', async () => {
    const s = testEnv().services;
    await loaded();
    const jti = randomUUID();
    await RevokedToken.create({ jti, expires_at: inAnHour(), reason: 'logout' });
    await s.redis.zadd(key(), Date.now() - 1, 'complete-until');
    expect(await isTokenIdRevoked(s, jti)).to.equal(true);
    await s.redis.del(key());
    expect(await isTokenIdRevoked(s, jti)).to.equal(true);
    await waitFor(async () => (await s.redis.zscore(key(), jti)) !== null, 5000, 'the store copied to Redis');
    expect(Number(await s.redis.zscore(key(), jti))).to.equal((await RevokedToken.findOne({ jti }).orFail()).expires_at.getTime());
    expect(await isTokenIdRevoked(s, jti)).to.equal(true);
    expect(await isTokenIdRevoked(s, randomUUID())).to.equal(false);
  });
});
