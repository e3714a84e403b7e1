/** Registering: a new organization with its owner, or joining one with an invitation's token. */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { hashPassword } from '../../platform/security/passwords';
import { recordEvent } from '../../platform/outbox/record-event';
import { badRequest } from '../../platform/errors';
import { identityErrors } from './errors';
import { isDuplicateKey } from '../../platform/mongo';
import { Invite } from '../../models/invite';
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

export async function registerUser(s: Services, body: z.infer<typeof registerBody>) {
  if (await User.exists({ email: body.email })) throw identityErrors.email_taken('email: already registered');
  const invite = body.invite_token ? await findInvite(body.email, body.invite_token) : null;
  const organizationId = invite
    ? invite.organization_id
    : (await Organization.create({ name: body.organization_name ?? `${body.full_name}'s organization` }))._id;
  let user: UserDoc;
  try {
    user = await User.create({
      organization_id: organizationId,
      email: body.email,
      full_name: body.full_name,
      password_hash: await hashPassword(body.password),
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
  if (invite) {
    await Invite.updateOne({ _id: invite._id }, { $set: { status: 'accepted', accepted_at: new Date() } });
    await recordEvent({
      organizationId: organizationId.toHexString(),
      type: 'team.member_joined',
      data: { id: user.id, email: user.email, full_name: user.full_name, role: user.role, invite_id: invite.id },
      actor: { type: 'user', id: user.id, name: user.full_name },
      resource: { type: 'user', id: user.id },
      summary: `${user.full_name} joined the team as ${user.role}`,
    });
  } else {
    // A new organization mails nobody else until its owner opens this link.
    await sendEmailVerification(s, user);
  }
  // The organization's MFA rule holds from the first sign-in, not only from the next login.
  return signIn(s, user);
}
