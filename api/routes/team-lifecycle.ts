/**
 * Deactivating and reactivating a member (services/identity/set-member-active.ts): a deactivated
 * member keeps their record but loses every session; deactivation starts their deprovisioning.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { teamMember } from '../../models/user';
import { setMemberActive } from '../../services/identity/set-member-active';
import { authorize, principalOf } from '../http/middleware/auth';
import { operation } from '../http/openapi';

const tag = 'Team';
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

export function teamLifecycleRouter(s: Engines): Router {
  const router = Router();
  router.post('/members/:id/deactivate', authorize('team:manage'), async (req, res) => {
    res.json({ ...teamMember(await setMemberActive(s, principalOf(req), req.params.id, false, 'team')), active: false });
  });
  router.post('/members/:id/reactivate', authorize('team:manage'), async (req, res) => {
    res.json({ ...teamMember(await setMemberActive(s, principalOf(req), req.params.id, true, 'team')), active: true });
  });
  return router;
}
