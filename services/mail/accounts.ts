/** Mail about accounts: invitations and password resets (their tokens travel only in these messages). */
import { Types } from 'mongoose';
import type { Services } from '../../platform/services';
import { Organization } from '../../models/organization';
import type { InviteDoc } from '../../models/invite';
import type { UserDoc } from '../../models/user';
import { queueMail } from './queue';
import { emailVerificationMail, invitationMail, passwordResetMail } from './messages';

export async function mailInvitation(s: Services, invite: InviteDoc, token: string, inviterName: string): Promise<void> {
  const org = await Organization.findById(invite.organization_id, { name: 1 }).lean();
  await queueMail(s, {
    organizationId: invite.organization_id,
    kind: 'team_invite',
    to: invite.email,
    dedupeKey: `team-invite:${invite.id}`,
    ref: { invite_id: invite.id },
    message: invitationMail(s.config.publicBaseUrl, {
      inviterName,
      organizationName: org?.name ?? 'their organization',
      role: invite.role,
      token,
      expiresAt: invite.expires_at,
    }),
  });
}

/** Each verification link is a message of its own (a resend is a new token). */
export async function mailEmailVerification(s: Services, user: UserDoc, token: string, expiresAt: Date): Promise<void> {
  await queueMail(s, {
    organizationId: user.organization_id,
    kind: 'email_verification',
    to: user.email,
    dedupeKey: `email-verification:${user.id}:${new Types.ObjectId().toHexString()}`,
    ref: { user_id: user.id },
    message: emailVerificationMail(s.config.publicBaseUrl, { email: user.email, token, expiresAt }),
  });
}

/** Each reset request mails its own token (a new key each time). */
export async function mailPasswordReset(s: Services, user: UserDoc, token: string, expiresAt: Date): Promise<void> {
  await queueMail(s, {
    organizationId: user.organization_id,
    kind: 'password_reset',
    to: user.email,
    dedupeKey: `password-reset:${user.id}:${new Types.ObjectId().toHexString()}`,
    ref: { user_id: user.id },
    message: passwordResetMail(s.config.publicBaseUrl, { email: user.email, token, expiresAt }),
  });
}
