/** API keys (`/settings/api-keys`): made by owners and admins, shown once, stored as SHA-256. */
import { Router } from 'express';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { ROLES, roleAtLeast } from '../../platform/security/rbac';
import { sha256Hex } from '../../platform/security/crypto';
import { newApiKey } from '../../services/identity/tokens';
import { inOrg, orgFilter } from '../../models/base';
import { ApiKey, apiKeyView } from '../../models/api-key';
import { authorize, principalOf } from '../http/middleware/auth';
import { forbidden, notFound } from '../../platform/errors';
import { operation, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';

const createBody = z.object({ name: z.string().trim().min(1).max(100), role: z.enum(ROLES).default('member') });

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
  body: createBody,
  responses: { 201: { description: 'The key, with its secret this once', schema: apiKeySchema.extend({ key: z.string() }) } },
});
operation({
  path: '/settings/api-keys',
  method: 'get',
  tag,
  summary: 'List API keys (never the secrets)',
  responses: { 200: { description: 'Keys', schema: z.object({ api_keys: z.array(apiKeySchema), total: z.number().int() }) } },
});
operation({ path: '/settings/api-keys/{id}', method: 'delete', tag, summary: 'Revoke an API key at once', responses: { 204: 'Revoked' } });

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
