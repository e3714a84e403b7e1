/**
 * The token blacklist. MongoDB is the record (it survives restarts of the service and of
 * Redis); Redis holds a copy that answers every check, so a valid token costs no store read.
 *
 * The copy is one sorted set (member jti, score its expiry) plus a marker member whose score
 * says until when the set is known to be complete. A check trusts the set only while the
 * marker is current; otherwise it asks the store and reloads the set in the background.
 * Because the marker lives in the same key, losing the key (a Redis restart, eviction,
 * expiry) also loses the claim of completeness. The marker lapses after TRUST_MS, which
 * bounds how long a revocation whose Redis write failed can go unseen while Redis answers.
 */
import { trusted } from 'mongoose';
import type { Redis } from 'ioredis';
import type { Config } from '../../platform/config';
import { redisKey } from '../../platform/redis';
import { RevokedToken } from '../../models/revoked-token';
import { isDuplicateKey } from '../../platform/mongo';

type Deps = { redis: Redis; config: Pick<Config, 'REDIS_KEY_PREFIX'> };

const COMPLETE = 'complete-until'; // never a jti: those are UUIDs
const TRUST_MS = 60_000;
/** Outlives the marker; the key removes itself once no process reloads it any more. */
const KEY_TTL_MS = 2 * TRUST_MS;

const setKey = (s: Deps) => redisKey(s.config, 'revoked-jtis');

/**
 * Records the id; false when it was already there (so a single-use token is spent
 * exactly once, even under concurrent attempts: the unique index decides).
 */
export async function revokeTokenId(s: Deps, jti: string, expiresAt: Date, reason: 'logout' | 'mfa_used'): Promise<boolean> {
  let fresh = true;
  try {
    await RevokedToken.create({ jti, expires_at: expiresAt, reason });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    fresh = false;
  }
  const key = setKey(s);
  await s.redis
    .multi()
    .zadd(key, expiresAt.getTime(), jti)
    .pexpire(key, KEY_TTL_MS)
    .exec()
    // The set no longer holds every revocation: withdraw its claim (if Redis is
    // unreachable for this too, the marker lapses by itself within TRUST_MS).
    .catch(() => s.redis.zrem(key, COMPLETE))
    .catch(() => undefined);
  return fresh;
}

export async function isTokenIdRevoked(s: Deps, jti: string): Promise<boolean> {
  const key = setKey(s);
  const [completeUntil, expiry] = (await s.redis.zmscore(key, COMPLETE, jti).catch(() => null)) ?? [null, null];
  if (expiry !== null) return true;
  const remaining = completeUntil === null ? 0 : Number(completeUntil) - Date.now();
  // Reload ahead of the lapse, so steady traffic never falls back to the store.
  if (remaining < TRUST_MS / 2) void reload(s, key);
  if (remaining > 0) return false;
  return (await RevokedToken.exists({ jti })) !== null;
}

const reloading = new Map<string, Promise<void>>();

/** Copies every unexpired revocation into the set, then marks it complete (once per process at a time). */
function reload(s: Deps, key: string): Promise<void> {
  let running = reloading.get(key);
  if (!running) {
    running = copyToRedis(s, key)
      .catch(() => undefined) // checks keep asking the store until a reload succeeds
      .finally(() => reloading.delete(key));
    reloading.set(key, running);
  }
  return running;
}

async function copyToRedis(s: Deps, key: string): Promise<void> {
  // Completeness counts from before the read: a revocation recorded after it adds itself.
  const readAt = Date.now();
  const rows = await RevokedToken.find({ expires_at: trusted({ $gt: new Date(readAt) }) }, { jti: 1, expires_at: 1 }).lean();
  const tx = s.redis.multi().zremrangebyscore(key, '-inf', readAt);
  for (const row of rows) tx.zadd(key, row.expires_at.getTime(), row.jti);
  await tx
    .zadd(key, readAt + TRUST_MS, COMPLETE)
    .pexpire(key, KEY_TTL_MS)
    .exec();
}
