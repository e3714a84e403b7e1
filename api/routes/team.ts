/**
 * Team: members, invitations, roles and MFA resets (services/identity/). Only an owner grants
 * or takes away `owner`, and an organization always keeps at least one owner.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { inviteView } from '../../models/invite';
import { teamMember } from '../../models/user';
import { changeMemberRole, roleBody } from '../../services/identity/change-member-role';
import { inviteBody, inviteMember } from '../../services/identity/invite-member';
import { listMembers, listPendingInvites } from '../../services/identity/list-team';
import { removeMember } from '../../services/identity/remove-member';
import { resetMemberMfa } from '../../services/identity/reset-member-mfa';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/team';

export function teamRouter(s: Engines): Router {
  const router = Router();

  router.get('/members', authorize('team:read'), async (req, res) => {
    const members = await listMembers(principalOf(req));
    res.json({ members: members.map(teamMember), total: members.length });
  });

  router.post('/invite', authorize('team:manage'), async (req, res) => {
    const { invite, token } = await inviteMember(s, principalOf(req), inviteBody.parse(req.body));
    res.status(201).json({
      id: invite.id,
      email: invite.email,
      role: invite.role,
      status: invite.status,
      expires_at: invite.expires_at.toISOString(),
      invite_token: token,
    });
  });

  router.get('/invites', authorize('team:read'), async (req, res) => {
    const invites = await listPendingInvites(principalOf(req));
    res.json({ invites: invites.map(inviteView), total: invites.length });
  });

  router.put('/members/:id/role', authorize('team:manage'), async (req, res) => {
    res.json(teamMember(await changeMemberRole(s, principalOf(req), req.params.id, roleBody.parse(req.body))));
  });

  router.delete('/members/:id', authorize('team:manage'), async (req, res) => {
    await removeMember(s, principalOf(req), req.params.id);
    res.status(204).end();
  });

  router.post('/members/:id/mfa/reset', authorize('team:manage'), async (req, res) => {
    await resetMemberMfa(principalOf(req), req.params.id);
    res.status(204).end();
  });

  return router;
}
