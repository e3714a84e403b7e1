/** An owner resets another member's MFA: secret and recovery codes go, and the member's sessions end. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { forbidden } from '../../platform/errors';
import { identityErrors } from './errors';
import { findOwned } from '../../platform/find-owned';
import { actorOf } from '../../platform/outbox/record-event';
import { User } from '../../models/user';
import { recordMfaEvent } from './enroll-mfa';
import { forgetUsers } from './auth-user';
import { dropRecoveryCodes } from './mfa';
import { revokeRefreshTokens } from './session';

export async function resetMemberMfa(s: Engines, p: Principal, id: unknown): Promise<void> {
  // A stolen access token must not be able to clear MFA: not an API key, not one's own.
  if (p.kind !== 'user' || p.role !== 'owner') throw forbidden("Only an owner, signed in, may reset a member's MFA");
  const target = await findOwned(User, p, id, 'Member');
  if (target.id === p.userId)
    throw identityErrors.mfa_reset_self('Replace your own MFA with POST /auth/mfa/setup and a current code or your password');
  // The sessions end too: whoever enrolled an authenticator in the member's name is signed out.
  await User.updateOne(
    { _id: target._id },
    {
      $set: { mfa_secret_encrypted: null, mfa_pending_secret_encrypted: null, mfa_enabled: false, mfa_last_step: null },
      $inc: { session_epoch: 1 },
    },
  );
  await Promise.all([forgetUsers(s, [target._id]), dropRecoveryCodes(target._id), revokeRefreshTokens({ user_id: target._id })]);
  await recordMfaEvent(s, target, 'team.mfa_reset', `${p.name} reset the MFA of ${target.full_name}`, actorOf(p));
}
