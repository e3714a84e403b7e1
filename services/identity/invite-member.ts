/** Inviting someone by email: a single-use token, mailed to them and shown once to the inviter. */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { sha256Hex } from '../../platform/security/crypto';
import { ROLES } from '../../platform/security/rbac';
import { identityErrors } from './errors';
import { orgFilter } from '../../models/base';
import { Invite, type InviteDoc } from '../../models/invite';
import { User } from '../../models/user';
import { mailInvitation } from '../mail/accounts';
import { reserveRecipients } from '../mail/reserve-recipients';
import { assertMayTouchOwner } from './owner-rules';
import { opaqueToken } from './tokens';

export const inviteBody = z.object({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  role: z.enum(ROLES),
});

/** Only an owner invites an owner; a new invitation to the same address replaces the previous one (its token stops working). */
export async function inviteMember(
  s: Engines,
  p: Principal,
  body: z.infer<typeof inviteBody>,
): Promise<{ invite: InviteDoc; token: string }> {
  assertMayTouchOwner(p, body.role);
  if (await User.exists({ email: body.email })) throw identityErrors.already_member('email: already a member');
  await reserveRecipients(s, p.organizationId, [body.email]);
  await Invite.updateMany({ ...orgFilter(p.organizationId), email: body.email, status: 'pending' }, { $set: { status: 'replaced' } });
  const token = opaqueToken();
  const invite = await Invite.create({
    organization_id: p.organizationId,
    email: body.email,
    role: body.role,
    token_hash: sha256Hex(token),
    invited_by: p.userId,
    expires_at: new Date(Date.now() + s.config.INVITE_TTL_SECONDS * 1000),
  });
  await mailInvitation(s, invite, token, p.name);
  return { invite, token };
}
