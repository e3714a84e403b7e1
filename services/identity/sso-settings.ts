/**
 * An organization's SSO settings (`/settings/sso`, owners and admins): the OpenID provider, the
 * client registered there, and who may come in. The client secret is write-only and kept
 * sealed; the issuer passes the same address guard as webhooks.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { encryptSecret } from '../../platform/security/crypto';
import { resolvedUrlRefusal } from '../../platform/security/url-policy';
import { isDuplicateKey } from '../../platform/mongo';
import { Organization } from '../../models/organization';
import { SSO_ROLES, SsoSettings, type SsoSettingsDoc } from '../../models/sso-settings';
import { discoverProvider } from './sso-provider';

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name such as example.com');

export const ssoSettingsBody = z
  .object({
    enabled: z.boolean(),
    issuer: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(500),
    client_id: z.string().trim().min(1).max(255),
    /** Write-only: omitted, the stored secret stays; null removes it (a public client with PKCE). */
    client_secret: z.string().min(1).max(1000).nullable().optional(),
    allowed_domains: z.array(domain).max(50).default([]),
    default_role: z.enum(SSO_ROLES).default('member'),
    auto_provision: z.boolean().default(false),
    enforce_sso: z.boolean().default(false),
    group_role_map: z
      .record(z.string().trim().min(1).max(255), z.enum(SSO_ROLES))
      .refine((m) => Object.keys(m).length <= 100, 'must map at most 100 groups')
      .default({}),
  })
  .strict();

/** Where the provider sends the browser back, registered there as the client's redirect URI. */
export const ssoRedirectUri = (s: Engines, slug: string) =>
  `${s.config.publicBaseUrl}/api/v1/auth/sso/${encodeURIComponent(slug)}/callback`;

export function ssoSettingsView(s: Engines, settings: SsoSettingsDoc | null) {
  if (!settings) return { configured: false as const, enabled: false };
  return {
    configured: true as const,
    enabled: settings.enabled,
    issuer: settings.issuer,
    client_id: settings.client_id,
    client_secret_set: !!settings.client_secret_sealed,
    allowed_domains: settings.allowed_domains,
    default_role: settings.default_role,
    auto_provision: settings.auto_provision,
    enforce_sso: settings.enforce_sso,
    group_role_map: Object.fromEntries(settings.group_role_map.map((g) => [String(g.group), String(g.role)])),
    slug: settings.slug,
    login_url: `${s.config.publicBaseUrl}/api/v1/auth/sso/${encodeURIComponent(settings.slug)}/start`,
    redirect_uri: ssoRedirectUri(s, settings.slug),
    updated_at: (settings.get('updated_at') as Date).toISOString(),
  };
}

export const getSsoSettings = (p: Principal) => SsoSettings.findOne({ organization_id: p.organizationId });

/** A slug from the organization's name, with a random tail when the plain one is taken. */
function slugCandidates(name: string): string[] {
  const base =
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'organization';
  return [base, ...Array.from({ length: 4 }, () => `${base}-${randomBytes(3).toString('hex')}`)];
}

export async function saveSsoSettings(s: Engines, p: Principal, body: z.infer<typeof ssoSettingsBody>): Promise<SsoSettingsDoc> {
  const policy = { allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS };
  const refused = await resolvedUrlRefusal(body.issuer, policy);
  if (refused) throw badRequest(`issuer: ${refused}`);
  if (!policy.allowPrivate && !body.issuer.startsWith('https:')) throw badRequest('issuer: must be an https URL');
  if (body.enforce_sso && !body.allowed_domains.length) throw badRequest('enforce_sso: needs allowed_domains (whose members must use SSO)');
  const fields = {
    enabled: body.enabled,
    issuer: body.issuer.replace(/\/+$/, ''),
    client_id: body.client_id,
    allowed_domains: [...new Set(body.allowed_domains)],
    default_role: body.default_role,
    auto_provision: body.auto_provision,
    enforce_sso: body.enforce_sso,
    group_role_map: Object.entries(body.group_role_map).map(([group, role]) => ({ group, role })),
    ...(body.client_secret === undefined
      ? {}
      : { client_secret_sealed: body.client_secret === null ? null : encryptSecret(s.config, body.client_secret) }),
  };
  const existing = await getSsoSettings(p);
  if (existing) {
    existing.set(fields);
    return existing.save();
  }
  const org = await Organization.findById(p.organizationId, { name: 1 }).lean();
  for (const slug of slugCandidates(org?.name ?? '')) {
    try {
      return await SsoSettings.create({ organization_id: p.organizationId, slug, ...fields });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // Another save of this organization won the race: update what it made.
      const made = await getSsoSettings(p);
      if (made) return made.set(fields).save();
    }
  }
  throw new Error('no free SSO slug');
}

/** What the provider publishes: the discovery document and its signing keys, fetched now. */
export async function testSsoSettings(s: Engines, p: Principal) {
  const settings = await getSsoSettings(p);
  if (!settings) throw badRequest('SSO is not configured: PUT /settings/sso first');
  try {
    const found = await discoverProvider(s, settings, { fresh: true });
    return { ok: true, detail: `Found ${found.issuer} with ${found.keys} signing key(s)`, ...found };
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : 'the provider could not be reached' };
  }
}
