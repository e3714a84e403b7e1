/** Password reset: a single-use code by mail, then a new password that ends every session. */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { hashPassword } from '../../platform/security/passwords';
import { badRequest } from '../../platform/errors';
import { exclusively } from '../../platform/claims';
import { User } from '../../models/user';
import { mailPasswordReset } from '../mail/accounts';
import { emailAddress, newPassword } from './credentials';
import { revokeRefreshTokens } from './session';
import { opaqueToken } from './tokens';

export const resetRequestBody = z.object({ email: emailAddress });
export const resetBody = z.object({ token: z.string().min(1).max(2048), password: newPassword });

export async function requestPasswordReset(s: Engines, body: z.infer<typeof resetRequestBody>) {
  const user = await User.findOne({ email: body.email });
  if (user) {
    const resetToken = opaqueToken();
    user.password_reset_hash = sha256Hex(resetToken);
    user.password_reset_expires_at = new Date(Date.now() + s.config.PASSWORD_RESET_TTL_SECONDS * 1000);
    await user.save();
    await mailPasswordReset(s, user, resetToken, user.password_reset_expires_at);
  }
}

/**
 * The token is spent under its claim (platform/claims.ts) before anything else: of many
 * requests carrying it at once, one finds it and clears it, the others find nothing (400).
 */
export async function resetPassword(body: z.infer<typeof resetBody>) {
  const hash = sha256Hex(body.token);
  const user = await exclusively('password-reset', hash, async () => {
    const found = await User.findOne({ password_reset_hash: hash, password_reset_expires_at: trusted({ $gt: new Date() }) });
    if (!found) throw badRequest('token: invalid or expired');
    await User.updateOne({ _id: found._id }, { $set: { password_reset_hash: null, password_reset_expires_at: null } });
    return found;
  });
  // A new password ends every existing session: access tokens carry the old epoch. An MFA
  // enrollment such a session started is dropped too; the enrolled secret stays, so the
  // reset gives its owner back the account, not whoever can read their mail.
  await User.updateOne(
    { _id: user._id },
    {
      $set: { password_hash: await hashPassword(body.password), mfa_pending_secret_encrypted: null },
      $inc: { session_epoch: 1 },
    },
  );
  await revokeRefreshTokens({ user_id: user._id });
}
