/** Changes that may take an owner away (a demotion or a removal), one at a time per organization. */
import type { Services } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { unavailable } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { LockUnavailableError, withLock } from '../../platform/lock';
import { redisKey } from '../../platform/redis';
import { orgFilter } from '../../models/base';
import { User, type UserDoc } from '../../models/user';
import { assertKeepsAnOwner } from './owner-rules';

/**
 * Runs the change on the member as read inside the organization's owner lock, after checking
 * that another owner remains. The count and the write must not interleave with another such
 * change (two owners demoting each other would both see two owners), and the store cannot
 * make them one atomic step: FerretDB 1.24 applies a conditional update as a read and a
 * separate write, so two conditional demotions both pass. Hence a short Redis lock per organization.
 */
export async function changeOwnerSafely<T>(s: Services, p: Principal, id: unknown, change: (target: UserDoc) => Promise<T>): Promise<T> {
  const key = redisKey(s.config, 'team-owner-lock', p.organizationId);
  try {
    return await withLock(s.redis, key, { ttlMs: 10_000, waitMs: 5_000 }, async () => {
      const target = await findOwned(User, p, id, 'Member');
      if (target.role === 'owner') assertKeepsAnOwner((await User.countDocuments({ ...orgFilter(p.organizationId), role: 'owner' })) - 1);
      return change(target);
    });
  } catch (err) {
    if (err instanceof LockUnavailableError)
      throw unavailable(
        'Owner changes cannot be made safely right now (another is in progress, or the lock store is unreachable); try again',
      );
    throw err;
  }
}
