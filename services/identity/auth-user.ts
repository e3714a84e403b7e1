/**
 * What authentication needs of a user on every request (organization, role, name, session
 * epoch), answered from Redis so a request costs no store read.
 *
 * The identity use cases that change what an entry holds (a role change, a member removed,
 * a session epoch raised by a password or MFA reset) drop it, through `forgetUsers` here, by
 * replacing it with a short-lived tombstone. A request that missed the cache fills it only where no
 * entry or tombstone exists (SET NX) and only if its own store read was recent, so a read
 * that raced a write can never put the older record back. Entries also expire after
 * ENTRY_TTL_MS, which bounds staleness if Redis refuses a tombstone.
 */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Types } from 'mongoose';
import type { Redis } from 'ioredis';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import { redisKey } from '../../platform/redis';
import { ROLES } from '../../platform/security/rbac';
import { User } from '../../models/user';

type Deps = { redis: Redis; config: Pick<Config, 'REDIS_KEY_PREFIX'> };

const ENTRY_TTL_MS = 60_000;
const TOMBSTONE = '-';
const TOMBSTONE_TTL_MS = 10_000;
/** A fill whose store read is older than this may predate a tombstone that has lapsed. */
const FILL_WITHIN_MS = TOMBSTONE_TTL_MS / 2;

const authUserSchema = z.object({
  organization_id: z.string(),
  role: z.enum(ROLES),
  full_name: z.string(),
  session_epoch: z.number(),
});
export type AuthUser = z.infer<typeof authUserSchema>;

const entryKey = (s: Deps, userId: string) => redisKey(s.config, 'auth-user', userId);

/** The user if they exist in this organization and are active, else null. */
export async function authUser(s: Deps, userId: string, organizationId: string): Promise<AuthUser | null> {
  const key = entryKey(s, userId);
  const cached = await s.redis.get(key).catch(() => TOMBSTONE);
  if (cached !== null && cached !== TOMBSTONE) {
    const entry = authUserSchema.safeParse(JSON.parse(cached));
    if (entry.success) return entry.data.organization_id === organizationId ? entry.data : null;
  }
  const readAt = Date.now();
  const user = await User.findOne(
    { _id: userId, organization_id: organizationId, active: trusted({ $ne: false }) },
    { role: 1, full_name: 1, session_epoch: 1 },
  ).lean();
  if (!user) return null;
  const found: AuthUser = {
    organization_id: organizationId,
    role: user.role,
    full_name: user.full_name,
    session_epoch: user.session_epoch,
  };
  if (cached === null && Date.now() - readAt < FILL_WITHIN_MS) {
    await s.redis.set(key, JSON.stringify(found), 'PX', ENTRY_TTL_MS, 'NX').catch(() => undefined);
  }
  return found;
}

/**
 * Drops users' entries after a write to them (the one place the cache is cleared): called by
 * each identity use case that changes a role or a session epoch, or removes a user. A failure
 * is logged, not thrown (the write has happened); entries lapse within ENTRY_TTL_MS.
 */
export async function forgetUsers(s: Deps & { logger: Logger }, userIds: ReadonlyArray<Types.ObjectId | string>): Promise<void> {
  const tx = s.redis.multi();
  for (const id of userIds) tx.set(entryKey(s, String(id)), TOMBSTONE, 'PX', TOMBSTONE_TTL_MS);
  await tx.exec().catch((err: unknown) => {
    s.logger.warn({ err: String(err), users: userIds.length }, `auth cache not cleared; entries lapse within ${ENTRY_TTL_MS / 1000} s`);
  });
}
