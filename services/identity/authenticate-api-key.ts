/**
 * Who calls with an API key: the key's own identity, at most its creator's role as it is now
 * (a removed creator's keys stop), read on every request so a revoked key stops at once.
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { roleAtLeast, type Role } from '../../platform/security/rbac';
import { sha256Hex } from '../../platform/security/crypto';
import { authUser } from './auth-user';
import { ApiKey } from '../../models/api-key';

const lower = (a: Role, b: Role): Role => (roleAtLeast(a, b) ? b : a);

/** The caller a key stands for, marking the key used; null for an unknown key or a removed creator. */
export async function authenticateApiKey(s: Engines, key: string): Promise<Principal | null> {
  const found = await ApiKey.findOneAndUpdate(
    { key_hash: sha256Hex(key) },
    { $set: { last_used_at: new Date() } },
    { returnDocument: 'after' },
  );
  if (!found) return null;
  // A key never outranks its creator as they are now; a removed creator's keys stop.
  const organizationId = found.organization_id.toHexString();
  const creatorId = found.created_by.toHexString();
  const creator = await authUser(s, creatorId, organizationId);
  if (!creator) return null;
  return {
    kind: 'api_key',
    id: found.id,
    userId: creatorId,
    organizationId,
    role: lower(found.role, creator.role),
    name: found.name,
  };
}

/** The organization of the key with this SHA-256, or null: what a rate limit counts against, before authentication. */
export async function apiKeyOrganization(keyHash: string): Promise<string | null> {
  const key = await ApiKey.findOne({ key_hash: keyHash }, { organization_id: 1 }).lean();
  return key ? key.organization_id.toHexString() : null;
}
