/** The caller's organization settings (`/settings/organization`). */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { getOrganization } from '../../services/identity/get-organization';
import { organizationBody, updateOrganization } from '../../services/identity/update-organization';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/organization';

export function organizationRouter(s: Engines): Router {
  const router = Router();

  router.get('/', authorize('team:read'), async (req, res) => {
    res.json((await getOrganization(principalOf(req))).toJSON());
  });

  router.put('/', authorize('settings:manage'), async (req, res) => {
    res.json((await updateOrganization(s, principalOf(req), organizationBody.parse(req.body))).toJSON());
  });

  return router;
}
