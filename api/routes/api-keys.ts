/** API keys (`/settings/api-keys`): made by owners and admins, shown once, stored as SHA-256. */
import { Router } from 'express';
import { z } from 'zod';
import type { Services } from '../../lib/services';
import { ROLES, roleAtLeast } from '../../lib/rbac';
import { sha256Hex } from '../../lib/crypto';
import { newApiKey } from '../../lib/tokens';
import { inOrg, orgFilter } from '../../models/base';
import { ApiKey, apiKeyView } from '../../models/api-key';
import { authorize, principalOf } from '../middleware/auth';
import { forbidden, notFound } from '../errors';

const createBody = z.object({ name: z.string().trim().min(1).max(100), role: z.enum(ROLES).default('member') });

export function apiKeysRouter(_s: Services): Router {
  const router = Router();

  router.post('/settings/api-keys', authorize('settings:manage'), async (req, res) => {
    const p = principalOf(req);
    const body = createBody.parse(req.body);
    if (!roleAtLeast(p.role, body.role)) throw forbidden(`role: a key cannot have a higher role than yours (${p.role})`);
    const key = newApiKey();
    const doc = await ApiKey.create({
      organization_id: p.organizationId,
      name: body.name,
      prefix: key.slice(0, 8),
      key_hash: sha256Hex(key),
      role: body.role,
      created_by: p.userId,
    });
    res.status(201).json({ ...apiKeyView(doc), key });
  });

  router.get('/settings/api-keys', authorize('settings:manage'), async (req, res) => {
    const keys = await ApiKey.find(orgFilter(principalOf(req).organizationId)).sort({ created_at: -1 });
    res.json({ api_keys: keys.map(apiKeyView), total: keys.length });
  });

  router.delete('/settings/api-keys/:id', authorize('settings:manage'), async (req, res) => {
    const filter = inOrg(principalOf(req).organizationId, req.params.id);
    const deleted = filter && (await ApiKey.findOneAndDelete(filter));
    if (!deleted) throw notFound('API key');
    res.status(204).end();
  });

  return router;
}
