/**
 * The organization's SCIM bearer token: made by an owner or admin, shown once, kept as its
 * SHA-256 (one per organization: a new one replaces the old at once). A call with it acts as
 * the organization's identity provider: as an owner when an owner made the token, else an admin.
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { randomBase62, sha256Hex } from '../../platform/security/crypto';
import { ScimToken } from '../../models/scim';
import { authUser } from '../identity/auth-user';
import { scimErrors } from './errors';

export const SCIM_TOKEN_PREFIX = 'scim_';

export async function createScimToken(p: Principal): Promise<{ token: string; prefix: string; created_at: string }> {
  const token = `${SCIM_TOKEN_PREFIX}${randomBase62(40)}`;
  const fields = { token_hash: sha256Hex(token), prefix: token.slice(0, 9), created_by: p.userId, last_used_at: null };
  const doc = await ScimToken.findOneAndUpdate(
    { organization_id: p.organizationId },
    { $set: fields },
    { upsert: true, returnDocument: 'after' },
  );
  return { token, prefix: fields.prefix, created_at: (doc.get('updated_at') as Date).toISOString() };
}

export async function scimTokenView(p: Principal) {
  const doc = await ScimToken.findOne({ organization_id: p.organizationId });
  return doc
    ? {
        configured: true,
        prefix: doc.prefix,
        created_at: (doc.get('updated_at') as Date).toISOString(),
        last_used_at: doc.last_used_at?.toISOString() ?? null,
      }
    : { configured: false };
}

export async function revokeScimToken(p: Principal): Promise<void> {
  await ScimToken.deleteOne({ organization_id: p.organizationId });
}

/** The principal the provider acts as, or 401. */
export async function authenticateScim(s: Engines, bearer: string | undefined): Promise<Principal> {
  if (!bearer?.startsWith(SCIM_TOKEN_PREFIX)) throw scimErrors.scim_token_invalid('A SCIM bearer token is required');
  const doc = await ScimToken.findOneAndUpdate({ token_hash: sha256Hex(bearer) }, { $set: { last_used_at: new Date() } });
  if (!doc) throw scimErrors.scim_token_invalid('The SCIM token is unknown or was replaced');
  const organizationId = doc.organization_id.toHexString();
  const creator = await authUser(s, doc.created_by.toHexString(), organizationId);
  return {
    kind: 'api_key',
    id: doc.id,
    userId: doc.created_by.toHexString(),
    organizationId,
    role: creator?.role === 'owner' ? 'owner' : 'admin',
    name: 'SCIM provisioning',
  };
}
