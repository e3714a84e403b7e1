/** Registering: a new organization with its owner, or joining one with an invitation's token. */
import { trusted, type Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { hashPassword } from '../../platform/security/passwords';
import { recordEvent } from '../../platform/outbox/record-event';
import { badRequest } from '../../platform/errors';
import { exclusively } from '../../platform/claims';
import { identityErrors } from './errors';
import { isDuplicateKey } from '../../platform/mongo';
import { Invite, type InviteDoc } from '../../models/invite';
import { Organization } from '../../models/organization';
import { User, type UserDoc } from '../../models/user';
import { emailAddress, newPassword } from './credentials';
import { signIn } from './log-in';
import { sendEmailVerification } from './verify-email';

export const registerBody = z.object({
  email: emailAddress,
  password: newPassword,
  full_name: z.string().trim().min(1).max(200),
  organization_name: z.string().trim().min(1).max(200).optional(),
  invite_token: z.string().min(1).max(200).optional(),
});

/**
 * The pending invitation a token stands for. Only the token joins: nobody confirmed that a
 * registering address belongs to whoever types it, so an invitation merely addressed to
 * it must not let them in (nor let an inviter capture a stranger's sign-up).
 */
async function findInvite(invitedEmail: string, token: string) {
  const invite = await Invite.findOne({ token_hash: sha256Hex(token), status: 'pending', expires_at: trusted({ $gt: new Date() }) });
  if (!invite) throw badRequest('invite_token: invalid or expired');
  if (invite.email !== invitedEmail) throw badRequest('email: does not match the invitation');
  return invite;
}

type RegisterBody = z.infer<typeof registerBody>;

async function createUser(
  body: RegisterBody,
  passwordHash: string,
  organizationId: Types.ObjectId,
  invite: InviteDoc | null,
): Promise<UserDoc> {
  try {
    return await User.create({
      organization_id: organizationId,
      email: body.email,
      full_name: body.full_name,
      password_hash: passwordHash,
      role: invite?.role ?? 'owner',
      is_approved: true,
      joined_at: new Date(),
      // The invitation's token reached this address by mail.
      email_verified_at: invite ? new Date() : null,
    });
  } catch (err) {
    if (isDuplicateKey(err)) throw identityErrors.email_taken('email: already registered');
    throw err;
  }
}

/**
 * Joins with an invitation, used once: under the token's claim (platform/claims.ts), so of
 * many registrations carrying it at once one joins and the others find it accepted (400).
 */
async function acceptInvite(body: RegisterBody, token: string): Promise<UserDoc> {
  const { user, invite } = await exclusively('invitation', sha256Hex(token), async () => {
    const invite = await findInvite(body.email, token);
    // Hashed once the invitation is known unused: a loser of the race costs no scrypt.
    const user = await createUser(body, await hashPassword(body.password), invite.organization_id, invite);
    await Invite.updateOne({ _id: invite._id }, { $set: { status: 'accepted', accepted_at: new Date() } });
    return { user, invite };
  });
  await recordEvent({
    organizationId: invite.organization_id.toHexString(),
    type: 'team.member_joined',
    data: { id: user.id, email: user.email, full_name: user.full_name, role: user.role, invite_id: invite.id },
    actor: { type: 'user', id: user.id, name: user.full_name },
    resource: { type: 'user', id: user.id },
    summary: `${user.full_name} joined the team as ${user.role}`,
  });
  return user;
}

export async function registerUser(s: Engines, body: RegisterBody) {
  if (await User.exists({ email: body.email })) throw identityErrors.email_taken('email: already registered');
  let user: UserDoc;
  if (body.invite_token) user = await acceptInvite(body, body.invite_token);
  else {
    const organization = await Organization.create({ name: body.organization_name ?? `${body.full_name}'s organization` });
    user = await createUser(body, await hashPassword(body.password), organization._id, null);
    // A new organization mails nobody else until its owner opens this link.
    await sendEmailVerification(s, user);
  }
  // The organization's MFA rule holds from the first sign-in, not only from the next login.
  return signIn(s, user);
}
