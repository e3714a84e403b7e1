/** API keys (`/settings/api-keys`): made by owners and admins, shown once, stored as SHA-256. */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { apiKeyView } from '../../models/api-key';
import { apiKeyBody, createApiKey } from '../../services/identity/create-api-key';
import { listApiKeys } from '../../services/identity/list-api-keys';
import { revokeApiKey } from '../../services/identity/revoke-api-key';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/api-keys';

export function apiKeysRouter(s: Engines): Router {
  const router = Router();

  router.post('/', authorize('settings:manage'), async (req, res) => {
    const { doc, key } = await createApiKey(s, principalOf(req), apiKeyBody.parse(req.body));
    res.status(201).json({ ...apiKeyView(doc), key });
  });

  router.get('/', authorize('settings:manage'), async (req, res) => {
    const keys = await listApiKeys(principalOf(req));
    res.json({ api_keys: keys.map(apiKeyView), total: keys.length });
  });

  router.delete('/:id', authorize('settings:manage'), async (req, res) => {
    await revokeApiKey(s, principalOf(req), req.params.id);
    res.status(204).end();
  });

  return router;
}
