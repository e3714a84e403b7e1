/** API keys (`/settings/api-keys`): made by owners and admins, shown once, stored as SHA-256. */
import { Router } from 'express';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { ROLES } from '../../platform/security/rbac';
import { apiKeyView } from '../../models/api-key';
import { apiKeyBody, createApiKey } from '../../services/identity/create-api-key';
import { listApiKeys } from '../../services/identity/list-api-keys';
import { revokeApiKey } from '../../services/identity/revoke-api-key';
import { authorize, principalOf } from '../http/middleware/auth';
import { operation, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';

/** apiKeyView (models/api-key.ts). */
const apiKeySchema = registry.register(
  'ApiKey',
  z.object({
    id: idSchema,
    name: z.string(),
    prefix: z.string(),
    role: z.enum(ROLES),
    created_by: idSchema,
    last_used_at: timestamp.nullable(),
    created_at: timestamp,
  }),
);

const tag = 'API keys';
operation({
  path: '/settings/api-keys',
  method: 'post',
  tag,
  summary: "Create an API key (at most the creator's role); the key is shown once",
  description:
    'An organization holds at most `API_KEYS_PER_ORG` keys (10 by default); the next answers 409 `api_key_limit_reached`. Keys share the organization-wide request ceiling with its users, so more keys buy no throughput. Recorded as `team.api_key_created`.',
  body: apiKeyBody,
  responses: {
    201: { description: 'The key, with its secret this once', schema: apiKeySchema.extend({ key: z.string() }) },
    409: 'The organization holds the most keys allowed (`api_key_limit_reached`)',
  },
});
operation({
  path: '/settings/api-keys',
  method: 'get',
  tag,
  summary: 'List API keys (never the secrets)',
  responses: { 200: { description: 'Keys', schema: z.object({ api_keys: z.array(apiKeySchema), total: z.number().int() }) } },
});
operation({
  path: '/settings/api-keys/{id}',
  method: 'delete',
  tag,
  summary: 'Revoke an API key at once (recorded as `team.api_key_revoked`)',
  responses: { 204: 'Revoked' },
});

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
