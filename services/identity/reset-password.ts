/** Password reset: a single-use code by mail, then a new password that ends every session. */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { hashPassword } from '../../platform/security/passwords';
import { badRequest } from '../../platform/errors';
import { User } from '../../models/user';
import { mailPasswordReset } from '../mail/accounts';
import { emailAddress, newPassword } from './credentials';
import { forgetUsers } from './auth-user';
import { revokeRefreshTokens } from './session';
import { opaqueToken } from './tokens';

export const resetRequestBody = z.object({ email: emailAddress });
export const resetBody = z.object({ token: z.string().min(1).max(2048), password: newPassword });

export async function requestPasswordReset(s: Services, body: z.infer<typeof resetRequestBody>) {
  const user = await User.findOne({ email: body.email });
  if (user) {
    const resetToken = opaqueToken();
    user.password_reset_hash = sha256Hex(resetToken);
    user.password_reset_expires_at = new Date(Date.now() + s.config.PASSWORD_RESET_TTL_SECONDS * 1000);
    await user.save();
    await mailPasswordReset(s, user, resetToken, user.password_reset_expires_at);
  }
}

export async function resetPassword(s: Services, body: z.infer<typeof resetBody>) {
  const user = await User.findOneAndUpdate(
    { password_reset_hash: sha256Hex(body.token), password_reset_expires_at: trusted({ $gt: new Date() }) },
    { $set: { password_reset_hash: null, password_reset_expires_at: null } },
    { returnDocument: 'after' },
  );
  if (!user) throw badRequest('token: invalid or expired');
  // A new password ends every existing session: access tokens carry the old epoch. An MFA
  // enrollment such a session started is dropped too; the enrolled secret stays, so the
  // reset gives its owner back the account, not whoever can read their mail.
  user.password_hash = await hashPassword(body.password);
  user.session_epoch += 1;
  user.mfa_pending_secret_encrypted = null;
  await user.save();
  await Promise.all([forgetUsers(s, [user._id]), revokeRefreshTokens({ user_id: user._id })]);
}
