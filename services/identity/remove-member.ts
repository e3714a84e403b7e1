/** Removing a member: their sessions, API keys and recovery codes go with them. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { ApiKey } from '../../models/api-key';
import { RefreshToken } from '../../models/refresh-token';
import { User } from '../../models/user';
import { dropRecoveryCodes } from './mfa';
import { changeOwnerSafely } from './owner-lock';
import { assertMayTouchOwner } from './owner-rules';

export async function removeMember(s: Engines, p: Principal, id: unknown): Promise<void> {
  assertMayTouchOwner(p, (await findOwned(User, p, id, 'Member')).role);
  await changeOwnerSafely(p, id, async (target) => {
    assertMayTouchOwner(p, target.role);
    // Their access tokens fail at once (authenticate re-reads the user); sessions, keys and recovery codes go too.
    await User.deleteOne({ _id: target._id });
    await Promise.all([
      RefreshToken.deleteMany({ user_id: target._id }),
      ApiKey.deleteMany({ created_by: target._id }),
      dropRecoveryCodes(target._id),
    ]);
  });
}
