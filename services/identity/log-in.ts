/** Signing in: the password (or an invitation) first, then the second factor the user or organization asks for. */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { hashPassword, needsRehash, verifyPassword, DECOY_HASH_PROMISE } from '../../platform/security/passwords';
import { unauthorized } from '../../platform/errors';
import { Organization } from '../../models/organization';
import { User, publicUser, type UserDoc } from '../../models/user';
import { emailAddress } from './credentials';
import { mfaCode, passSecondFactor, startEnrollment } from './enroll-mfa';
import { revokeTokenId } from './revoked-token';
import { issueSession, sessionToken } from './session';
import { refuseWhenSsoEnforced } from './sso-enforcement';
import { signToken, verifyToken } from './tokens';

export const loginBody = z.object({ email: emailAddress, password: z.string().min(1).max(256) });
export const mfaVerifyBody = z.object({ mfa_token: sessionToken, code: mfaCode });

/** After the password (or an invitation): a session, or the MFA challenge the user or their organization asks for. */
export async function signIn(s: Engines, user: UserDoc) {
  if (user.active === false) throw unauthorized('This account is deactivated');
  const org = await Organization.findById(user.organization_id);
  if (org?.mfa_required || user.mfa_enabled) {
    const mfa = signToken(s.config, 'mfa', {
      userId: user.id,
      organizationId: user.organization_id.toHexString(),
      sessionEpoch: user.session_epoch,
    });
    const enrollment = user.mfa_secret_encrypted ? {} : { mfa_enrollment: await startEnrollment(s, user) };
    return { mfa_required: true, mfa_token: mfa.token, expires_in: mfa.expiresIn, ...enrollment };
  }
  return { ...(await issueSession(s, user)), user: publicUser(user) };
}

export async function logIn(s: Engines, body: z.infer<typeof loginBody>) {
  const user = await User.findOne({ email: body.email });
  // Always run scrypt, so an unknown email takes as long as a wrong password.
  const ok = await verifyPassword(body.password, user?.password_hash ?? (await DECOY_HASH_PROMISE));
  if (!user || !ok) throw unauthorized('Invalid email or password');
  // Only after the password: the answer tells nobody without it that the account exists.
  await refuseWhenSsoEnforced(user);
  // A hash made with older parameters is replaced now that the password is at hand; the
  // condition keeps a password reset made meanwhile.
  if (needsRehash(user.password_hash)) {
    await User.updateOne(
      { _id: user._id, password_hash: user.password_hash },
      { $set: { password_hash: await hashPassword(body.password) } },
    );
  }
  return signIn(s, user);
}

/** Completes an MFA login with a TOTP or recovery code; the mfa_token is spent whatever the code. */
export async function verifyMfaLogin(s: Engines, body: z.infer<typeof mfaVerifyBody>) {
  const claims = verifyToken(s.config, 'mfa', body.mfa_token);
  if (!claims) throw unauthorized('Invalid or expired mfa_token');
  // Single use: spent by this attempt whatever the code, so guesses need a new password login each.
  if (!(await revokeTokenId(s, claims.jti, new Date(claims.exp * 1000), 'mfa_used'))) throw unauthorized('mfa_token already used');
  const user = await User.findOne({ _id: claims.sub, organization_id: claims.org });
  if (!user || user.session_epoch !== claims.sev) throw unauthorized('Invalid or expired mfa_token');
  const passed = await passSecondFactor(s, user, body.code);
  if (!passed) throw unauthorized('Invalid code');
  const recovery = passed.kind === 'totp' && passed.recoveryCodes ? { recovery_codes: passed.recoveryCodes } : {};
  return { ...(await issueSession(s, user)), user: publicUser(user), ...recovery };
}
