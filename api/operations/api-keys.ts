/** The OpenAPI description of the API key operations (api/routes/api-keys.ts serves them). */
import { z } from 'zod';
import { ROLES } from '../../platform/security/rbac';
import { idSchema } from '../../platform/input';
import { apiKeyBody } from '../../services/identity/create-api-key';
import { operation, registry, timestamp } from '../http/openapi';

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
