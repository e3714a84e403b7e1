/** Mail about accounts: invitations, password resets, address checks and SSO link confirmations (their tokens travel only in these messages). */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { Organization } from '../../models/organization';
import type { InviteDoc } from '../../models/invite';
import type { UserDoc } from '../../models/user';
import { queueMail } from './queue';
import { emailVerificationMail, invitationMail, passwordResetMail, ssoLinkMail } from './messages';

export async function mailInvitation(s: Engines, invite: InviteDoc, token: string, inviterName: string): Promise<void> {
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

/**
 * A link to the user's own address with a token of its own: each request mails a new one
 * (a new key each time), and the renderer builds the message from the same values.
 */
function mailOwnLink(kind: 'email_verification' | 'password_reset' | 'sso_link', render: typeof passwordResetMail) {
  return async (s: Engines, user: UserDoc, token: string, expiresAt: Date): Promise<void> => {
    await queueMail(s, {
      organizationId: user.organization_id,
      kind,
      to: user.email,
      dedupeKey: `${kind.replace('_', '-')}:${user.id}:${new Types.ObjectId().toHexString()}`,
      ref: { user_id: user.id },
      message: render(s.config.publicBaseUrl, { email: user.email, token, expiresAt }),
    });
  };
}

export const mailEmailVerification = mailOwnLink('email_verification', emailVerificationMail);
export const mailPasswordReset = mailOwnLink('password_reset', passwordResetMail);
export const mailSsoLink = mailOwnLink('sso_link', ssoLinkMail);
