/**
 * Verifying an owner's email address: a single-use link with an expiry, mailed at
 * registration and on request. Until an owner of the organization has verified, it mails
 * nobody else (services/mail/reserve-recipients.ts). Joining by invitation verifies too:
 * the invitation's token came by mail to that address.
 */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { sha256Hex } from '../../platform/security/crypto';
import { badRequest, unauthorized } from '../../platform/errors';
import { User, type UserDoc } from '../../models/user';
import { mailEmailVerification } from '../mail/accounts';
import { identityErrors } from './errors';
import { opaqueToken } from './tokens';

export const verifyEmailBody = z.object({ token: z.string().min(1).max(2048) });

/** A new link for the user (the previous one stops working), mailed to their address. */
export async function sendEmailVerification(s: Engines, user: UserDoc): Promise<void> {
  const token = opaqueToken();
  user.email_verification_hash = sha256Hex(token);
  user.email_verification_expires_at = new Date(Date.now() + s.config.EMAIL_VERIFICATION_TTL_SECONDS * 1000);
  await user.save();
  await mailEmailVerification(s, user, token, user.email_verification_expires_at);
}

export async function verifyEmail(body: z.infer<typeof verifyEmailBody>): Promise<void> {
  const user = await User.findOneAndUpdate(
    { email_verification_hash: sha256Hex(body.token), email_verification_expires_at: trusted({ $gt: new Date() }) },
    { $set: { email_verified_at: new Date(), email_verification_hash: null, email_verification_expires_at: null } },
    { returnDocument: 'after' },
  );
  if (!user) throw identityErrors.email_verification_invalid('token: invalid, used or expired; ask for a new link');
}

/** Mails the signed-in user a new link, unless their address is verified already. */
export async function resendEmailVerification(s: Engines, p: Principal): Promise<void> {
  if (p.kind !== 'user') throw badRequest('An email address is verified by its signed-in user, not an API key');
  const user = await User.findOne({ _id: p.userId, organization_id: p.organizationId });
  if (!user) throw unauthorized();
  if (user.email_verified_at) throw identityErrors.email_already_verified('Your email address is already verified');
  await sendEmailVerification(s, user);
}
