/** The OpenAPI description of SSO (api/routes/sso.ts serves it). */
import { z } from 'zod';
import { SSO_ROLES } from '../../models/sso-settings';
import { ssoSettingsBody } from '../../services/identity/sso-settings';
import { operation, registry, timestamp } from '../http/openapi';

const slugParam = z.object({
  slug: z.string().min(1).max(100).meta({ description: "The organization's SSO name (`slug` in /settings/sso)" }),
});

const ssoSettingsSchema = registry.register(
  'SsoSettings',
  z.object({
    configured: z.boolean(),
    enabled: z.boolean(),
    issuer: z.url().optional(),
    client_id: z.string().optional(),
    client_secret_set: z.boolean().optional().meta({ description: 'The secret itself is write-only' }),
    allowed_domains: z.array(z.string()).optional(),
    default_role: z.enum(SSO_ROLES).optional(),
    auto_provision: z.boolean().optional(),
    enforce_sso: z.boolean().optional(),
    group_role_map: z.record(z.string(), z.enum(SSO_ROLES)).optional(),
    slug: z.string().optional(),
    login_url: z.url().optional().meta({ description: 'Where a member starts signing in' }),
    redirect_uri: z.url().optional().meta({ description: "Register this at the provider as the client's redirect URI" }),
    updated_at: timestamp.optional(),
  }),
);

const tag = 'SSO';
operation({
  path: '/settings/sso',
  method: 'get',
  tag,
  summary: "The organization's SSO settings (owners and admins)",
  responses: { 200: { description: 'The settings', schema: ssoSettingsSchema } },
});
operation({
  path: '/settings/sso',
  method: 'put',
  tag,
  summary: "Set the organization's OpenID Connect sign-in (owners and admins)",
  description:
    'Replaces the settings. `client_secret` is write-only and kept encrypted; omitted, the stored one stays. The issuer passes the address guard webhooks pass: cloud metadata addresses are always refused, loopback and private addresses only where the deployment allows them (the local stack). `enforce_sso` makes password sign-in answer 403 `sso_required` for members of `allowed_domains`; an owner with MFA keeps a password.',
  body: ssoSettingsBody,
  responses: { 200: { description: 'The settings', schema: ssoSettingsSchema }, 400: 'Invalid input, or a refused issuer' },
});
operation({
  path: '/settings/sso/test',
  method: 'post',
  tag,
  summary: "Fetch the provider's discovery document and keys, and say what was found",
  responses: {
    200: {
      description: '`ok` false with a `detail` when the provider could not be read',
      schema: z.object({
        ok: z.boolean(),
        detail: z.string(),
        issuer: z.string().optional(),
        jwks_uri: z.string().optional(),
        keys: z.number().int().optional(),
      }),
    },
    400: 'SSO is not configured',
  },
});
operation({
  path: '/auth/sso/{slug}/start',
  method: 'get',
  tag,
  public: true,
  params: slugParam,
  summary: 'Start signing in through the organization’s identity provider',
  description:
    'Answers 302 to the provider with `state`, `nonce` and a PKCE S256 challenge, and sets a short-lived cookie that binds the sign-in to this browser.',
  responses: { 302: 'To the provider', 404: 'No organization signs in with SSO under that name', 502: 'The provider could not be reached' },
});
operation({
  path: '/auth/sso/{slug}/callback',
  method: 'get',
  tag,
  public: true,
  params: slugParam,
  query: z.object({ code: z.string().optional(), state: z.string().optional(), iss: z.string().optional() }),
  summary: 'Where the provider sends the browser back: the usual login answer',
  description:
    'openid-client checks the ID token (signature against the JWKS, `iss`, `aud`, `exp`, `nonce`) and the code with its PKCE verifier; `state` is single use and bound to the browser that started. A member is found by (issuer, subject); a first sign-in is linked by email only when `email_verified` is true and the domain is allowed. An existing password account is linked only after it confirms a mailed link (202). With MFA, the answer is the MFA challenge.',
  responses: {
    200: { description: 'Signed in, or an MFA challenge', schema: z.record(z.string(), z.unknown()) },
    202: {
      description: 'A confirmation link was mailed to the existing account',
      schema: z.object({ detail: z.string(), link_required: z.literal(true) }),
    },
    401: 'The sign-in could not be verified',
    403: 'Unverified email, a domain not allowed, no member and no auto-provisioning, or another organization’s account',
  },
});
operation({
  path: '/auth/sso/link/confirm',
  method: 'post',
  tag,
  public: true,
  summary: 'Confirm the mailed link: the provider account signs in as this member from now on',
  body: z.object({ token: z.string().min(1).max(200) }),
  responses: {
    200: { description: 'Signed in, or an MFA challenge', schema: z.record(z.string(), z.unknown()) },
    400: 'Unknown, used or expired link',
  },
});
