/** Minting an API key: at most the creator's role, at most API_KEYS_PER_ORG per organization, shown once. */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { ROLES, roleAtLeast } from '../../platform/security/rbac';
import { sha256Hex } from '../../platform/security/crypto';
import { forbidden } from '../../platform/errors';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { orgFilter } from '../../models/base';
import { ApiKey, type ApiKeyDoc } from '../../models/api-key';
import { identityErrors } from './errors';
import { newApiKey } from './tokens';

export const apiKeyBody = z.object({ name: z.string().trim().min(1).max(100), role: z.enum(ROLES).default('member') });

export async function createApiKey(s: Engines, p: Principal, body: z.infer<typeof apiKeyBody>): Promise<{ doc: ApiKeyDoc; key: string }> {
  if (!roleAtLeast(p.role, body.role)) throw forbidden(`role: a key cannot have a higher role than yours (${p.role})`);
  const limit = s.config.API_KEYS_PER_ORG;
  const full = () =>
    identityErrors.api_key_limit_reached(`This organization already has ${limit} API keys, the most allowed; revoke one first`);
  const count = () => ApiKey.countDocuments(orgFilter(p.organizationId));
  if ((await count()) >= limit) throw full();
  const key = newApiKey();
  const doc = await ApiKey.create({
    organization_id: p.organizationId,
    name: body.name,
    prefix: key.slice(0, 8),
    key_hash: sha256Hex(key),
    role: body.role,
    created_by: p.userId,
  });
  // Counted again after the insert: of concurrent mints at the limit, those that see too
  // many take theirs back, so the organization never keeps more than the limit.
  if ((await count()) > limit) {
    await ApiKey.deleteOne({ _id: doc._id });
    throw full();
  }
  await recordApiKeyEvent(p, doc, 'team.api_key_created', `${p.name} created the API key "${doc.name}" (${doc.role})`);
  return { doc, key };
}

export const recordApiKeyEvent = (p: Principal, doc: ApiKeyDoc, type: 'team.api_key_created' | 'team.api_key_revoked', summary: string) =>
  recordEvent({
    organizationId: p.organizationId,
    type,
    data: { id: doc.id, name: doc.name, prefix: doc.prefix, role: doc.role, created_by: doc.created_by.toHexString() },
    actor: actorOf(p),
    resource: { type: 'api_key', id: doc.id },
    summary,
  });
