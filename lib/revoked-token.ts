/**
 * The token blacklist: MongoDB is the record (it survives restarts of the service and of
 * Redis), Redis a cache that answers "revoked" without a store round trip.
 */
import type { Redis } from 'ioredis';
import { RevokedToken } from '../models/revoked-token';

const cacheKey = (jti: string) => `revoked-jti:${jti}`;

/**
 * Records the id; false when it was already there (so a single-use token is spent
 * exactly once, even under concurrent attempts: the unique index decides).
 */
export async function revokeTokenId(redis: Redis, jti: string, expiresAt: Date, reason: 'logout' | 'mfa_used'): Promise<boolean> {
  let fresh = true;
  try {
    await RevokedToken.create({ jti, expires_at: expiresAt, reason });
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
    fresh = false;
  }
  const ttlMs = expiresAt.getTime() - Date.now();
  if (ttlMs > 0) await redis.set(cacheKey(jti), '1', 'PX', ttlMs).catch(() => undefined);
  return fresh;
}

export async function isTokenIdRevoked(redis: Redis, jti: string): Promise<boolean> {
  const cached = await redis.exists(cacheKey(jti)).catch(() => 0);
  if (cached) return true;
  return (await RevokedToken.exists({ jti })) !== null;
}
