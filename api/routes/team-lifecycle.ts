/**
 * Deactivating and reactivating a member (services/identity/set-member-active.ts): a deactivated
 * member keeps their record but loses every session; deactivation starts their deprovisioning.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { teamMember } from '../../models/user';
import { setMemberActive } from '../../services/identity/set-member-active';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/team';

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
