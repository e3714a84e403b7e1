/**
 * Removing a member: their record goes at once, so their tokens and API keys stop on the next
 * request (authentication re-reads the user, and a key never outlives its creator); the
 * deprovisioning workflow then ends their sessions and revokes or hands on their keys.
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { RefreshToken } from '../../models/refresh-token';
import { User } from '../../models/user';
import { forgetUsers } from './auth-user';
import { dropRecoveryCodes } from './mfa';
import { changeOwnerSafely } from './owner-lock';
import { assertMayTouchOwner } from './owner-rules';
import { startDeprovisioning } from './start-deprovisioning';

export async function removeMember(s: Engines, p: Principal, id: unknown): Promise<void> {
  assertMayTouchOwner(p, (await findOwned(User, p, id, 'Member')).role);
  const removed = await changeOwnerSafely(p, id, async (target) => {
    assertMayTouchOwner(p, target.role);
    await User.deleteOne({ _id: target._id });
    await forgetUsers(s, [target._id]);
    await Promise.all([RefreshToken.deleteMany({ user_id: target._id }), dropRecoveryCodes(target._id)]);
    return target;
  });
  await startDeprovisioning(s, p, removed, 'removed');
}
