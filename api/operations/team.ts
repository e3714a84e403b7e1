/** The OpenAPI description of the team operations (api/routes/team.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { ROLES } from '../../platform/security/rbac';
import { roleBody } from '../../services/identity/change-member-role';
import { inviteBody } from '../../services/identity/invite-member';
import { operation, registry, timestamp } from '../http/openapi';

const role = z.enum(ROLES);
/** teamMember (models/user.ts). */
const memberSchema = registry.register(
  'TeamMember',
  z.object({ id: idSchema, email: z.email(), full_name: z.string(), role, is_approved: z.boolean(), joined_at: timestamp }),
);
/** inviteView (models/invite.ts). */
const inviteSchema = registry.register(
  'Invite',
  z.object({
    id: idSchema,
    email: z.email(),
    role,
    status: z.enum(['pending', 'accepted', 'replaced']),
    invited_by: idSchema,
    expires_at: timestamp,
    created_at: timestamp,
  }),
);

const tag = 'Team';
operation({
  path: '/team/members',
  method: 'get',
  tag,
  summary: "List the organization's members",
  responses: { 200: { description: 'Members', schema: z.object({ members: z.array(memberSchema), total: z.number().int() }) } },
});
operation({
  path: '/team/invite',
  method: 'post',
  tag,
  summary: 'Invite someone by email (owner or admin; only an owner invites an owner)',
  body: inviteBody,
  responses: {
    201: {
      description: 'The invitation; the token is shown once',
      schema: inviteSchema.pick({ id: true, email: true, role: true, status: true, expires_at: true }).extend({ invite_token: z.string() }),
    },
    403: 'No owner of the organization has verified their email address yet (`email_not_verified`), or the role does not allow it',
    409: 'Already a member',
    429: "The invitation would pass the organization's daily recipient quota (`mail_quota_exceeded`)",
  },
});
operation({
  path: '/team/invites',
  method: 'get',
  tag,
  summary: 'List pending invitations',
  responses: { 200: { description: 'Invitations', schema: z.object({ invites: z.array(inviteSchema), total: z.number().int() }) } },
});
operation({
  path: '/team/members/{id}/role',
  method: 'put',
  tag,
  summary: "Change a member's role; the last owner stays owner",
  body: roleBody,
  responses: { 200: { description: 'The member', schema: memberSchema }, 409: 'The organization must keep at least one owner' },
});
operation({
  path: '/team/members/{id}',
  method: 'delete',
  tag,
  summary: 'Remove a member; their sessions and API keys end at once',
  responses: { 204: 'Removed', 409: 'The organization must keep at least one owner' },
});
operation({
  path: '/team/members/{id}/mfa/reset',
  method: 'post',
  tag,
  summary: "Reset another member's MFA (owners, signed in as a user)",
  description:
    "For a member who lost their authenticator and recovery codes, or whose MFA someone else enrolled. Removes the TOTP secret and the recovery codes and ends the member's sessions; their next login enrolls again when the organization requires MFA. Recorded as `team.mfa_reset`. Your own MFA is replaced with POST /auth/mfa/setup and a current code or your password.",
  responses: { 204: 'Reset', 403: 'Not an owner, an API key, or your own account' },
});

// Deactivating and reactivating a member (api/routes/team-lifecycle.ts).
for (const [action, summary] of [
  ['deactivate', 'Deactivate a member: no sign-in, every session ends, their leaving runs as `member-deprovision-<id>`'],
  ['reactivate', 'Reactivate a member: they sign in again to get a session'],
] as const)
  operation({
    path: `/team/members/{id}/${action}`,
    method: 'post',
    tag,
    summary,
    responses: { 200: 'The member', 409: 'Deactivating the last active owner (`last_owner`)' },
  });
