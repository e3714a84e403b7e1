/**
 * Team: members, invitations, roles and MFA resets. Only an owner grants or takes away
 * `owner`, and an organization always keeps at least one owner.
 */
import { Router } from 'express';
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import type { Principal } from '../../platform/security/principal';
import { ROLES, type Role } from '../../platform/security/rbac';
import { sha256Hex } from '../../platform/security/crypto';
import { opaqueToken } from '../../services/identity/tokens';
import { LockUnavailableError, withLock } from '../../platform/lock';
import { redisKey } from '../../platform/redis';
import { dropRecoveryCodes } from '../../services/identity/mfa';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { orgFilter } from '../../models/base';
import { User, teamMember, type UserDoc } from '../../models/user';
import { Invite, inviteView } from '../../models/invite';
import { ApiKey } from '../../models/api-key';
import { RefreshToken } from '../../models/refresh-token';
import { mailInvitation } from '../../services/mail/accounts';
import { authorize, principalOf } from '../http/middleware/auth';
import { conflict, forbidden, unavailable } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { operation, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';

const role = z.enum(ROLES);
const inviteBody = z.object({
  email: z
    .email()
    .max(254)
    .transform((e) => e.toLowerCase()),
  role,
});
const roleBody = z.object({ role });

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
    409: 'Already a member',
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

function assertMayTouchOwner(p: Principal, ...roles: Role[]) {
  if (roles.includes('owner') && p.role !== 'owner') throw forbidden('Only an owner may grant or remove the owner role');
}

/**
 * Runs a change that may take an owner away (a demotion or a removal) on the member as
 * read inside the organization's owner lock, after checking that another owner remains.
 * The count and the write must not interleave with another such change (two owners
 * demoting each other would both see two owners), and the store cannot make them one
 * atomic step: FerretDB 1.24 applies a conditional update as a read and a separate write,
 * so two conditional demotions both pass. Hence a short Redis lock per organization.
 */
async function changeOwnerSafely<T>(s: Services, p: Principal, id: unknown, change: (target: UserDoc) => Promise<T>): Promise<T> {
  const key = redisKey(s.config, 'team-owner-lock', p.organizationId);
  try {
    return await withLock(s.redis, key, { ttlMs: 10_000, waitMs: 5_000 }, async () => {
      const target = await findOwned(User, p, id, 'Member');
      if (target.role === 'owner') {
        const owners = await User.countDocuments({ ...orgFilter(p.organizationId), role: 'owner' });
        if (owners <= 1) throw conflict('The organization must keep at least one owner');
      }
      return change(target);
    });
  } catch (err) {
    if (err instanceof LockUnavailableError)
      throw unavailable(
        'Owner changes cannot be made safely right now (another is in progress, or the lock store is unreachable); try again',
      );
    throw err;
  }
}

export function teamRouter(s: Services): Router {
  const router = Router();

  router.get('/team/members', authorize('team:read'), async (req, res) => {
    const members = await User.find(orgFilter(principalOf(req).organizationId)).sort({ joined_at: 1 });
    res.json({ members: members.map(teamMember), total: members.length });
  });

  router.post('/team/invite', authorize('team:manage'), async (req, res) => {
    const p = principalOf(req);
    const body = inviteBody.parse(req.body);
    assertMayTouchOwner(p, body.role);
    if (await User.exists({ email: body.email })) throw conflict('email: already a member');
    // A new invitation to the same address replaces the previous one (its token stops working).
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
    res.status(201).json({
      id: invite.id,
      email: invite.email,
      role: invite.role,
      status: invite.status,
      expires_at: invite.expires_at.toISOString(),
      invite_token: token,
    });
  });

  router.get('/team/invites', authorize('team:read'), async (req, res) => {
    const invites = await Invite.find({
      ...orgFilter(principalOf(req).organizationId),
      status: 'pending',
      expires_at: trusted({ $gt: new Date() }),
    }).sort({ created_at: -1 });
    res.json({ invites: invites.map(inviteView), total: invites.length });
  });

  router.put('/team/members/:id/role', authorize('team:manage'), async (req, res) => {
    const p = principalOf(req);
    const body = roleBody.parse(req.body);
    const target = await findOwned(User, p, req.params.id, 'Member');
    assertMayTouchOwner(p, target.role, body.role);
    const apply = async (member: UserDoc) => {
      assertMayTouchOwner(p, member.role, body.role);
      member.role = body.role;
      await member.save();
      return member;
    };
    const changed = body.role === 'owner' ? await apply(target) : await changeOwnerSafely(s, p, req.params.id, apply);
    res.json(teamMember(changed));
  });

  router.delete('/team/members/:id', authorize('team:manage'), async (req, res) => {
    const p = principalOf(req);
    assertMayTouchOwner(p, (await findOwned(User, p, req.params.id, 'Member')).role);
    await changeOwnerSafely(s, p, req.params.id, async (target) => {
      assertMayTouchOwner(p, target.role);
      // Their access tokens fail at once (authenticate re-reads the user); sessions, keys and recovery codes go too.
      await User.deleteOne({ _id: target._id });
      await Promise.all([
        RefreshToken.deleteMany({ user_id: target._id }),
        ApiKey.deleteMany({ created_by: target._id }),
        dropRecoveryCodes(target._id),
      ]);
    });
    res.status(204).end();
  });

  router.post('/team/members/:id/mfa/reset', authorize('team:manage'), async (req, res) => {
    const p = principalOf(req);
    // A stolen access token must not be able to clear MFA: not an API key, not one's own.
    if (p.kind !== 'user' || p.role !== 'owner') throw forbidden("Only an owner, signed in, may reset a member's MFA");
    const target = await findOwned(User, p, req.params.id, 'Member');
    if (target.id === p.userId) throw forbidden('Replace your own MFA with POST /auth/mfa/setup and a current code or your password');
    // The sessions end too: whoever enrolled an authenticator in the member's name is signed out.
    await User.updateOne(
      { _id: target._id },
      {
        $set: { mfa_secret_encrypted: null, mfa_pending_secret_encrypted: null, mfa_enabled: false, mfa_last_step: null },
        $inc: { session_epoch: 1 },
      },
    );
    await Promise.all([
      dropRecoveryCodes(target._id),
      RefreshToken.updateMany({ user_id: target._id, revoked_at: null }, { $set: { revoked_at: new Date() } }),
    ]);
    await recordEvent({
      organizationId: p.organizationId,
      type: 'team.mfa_reset',
      data: { id: target.id, email: target.email, full_name: target.full_name },
      actor: actorOf(p),
      resource: { type: 'user', id: target.id },
      summary: `${p.name} reset the MFA of ${target.full_name}`,
    });
    res.status(204).end();
  });

  return router;
}
