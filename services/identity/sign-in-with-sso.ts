/**
 * Signing in through the organization's OpenID provider: the authorization code flow with
 * state, nonce and PKCE (S256), checked by openid-client (signature against the JWKS, `iss`,
 * `aud`, `exp`, `nonce`; `state` and the PKCE verifier are kept here, single use, for ten
 * minutes, bound to the browser that started). A member is found by the pair (issuer,
 * subject); the email only links a first sign-in, and only when the provider verified it and
 * its domain is allowed. An existing password account is never linked without a confirmation
 * mailed to it. Then the usual sign-in: the TOTP challenge when the member has MFA, else tokens.
 */
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Engines } from '../../platform/engines';
import { sha256Hex, safeEqual } from '../../platform/security/crypto';
import { hashPassword } from '../../platform/security/passwords';
import { recordEvent } from '../../platform/outbox/record-event';
import { redisKey } from '../../platform/redis';
import { isDuplicateKey } from '../../platform/mongo';
import { SsoSettings, type SsoSettingsDoc } from '../../models/sso-settings';
import { SsoIdentity, SsoLinkRequest } from '../../models/sso-identity';
import { User, type UserDoc } from '../../models/user';
import { mailSsoLink } from '../mail/accounts';
import { identityErrors } from './errors';
import { signIn } from './log-in';
import { providerConfiguration, providerFailure } from './sso-provider';
import { ssoRedirectUri } from './sso-settings';
import { opaqueToken } from './tokens';

const PENDING_TTL_SECONDS = 600;
const LINK_TTL_MS = 24 * 3600_000;

interface PendingLogin {
  settingsId: string;
  nonce: string;
  verifier: string;
  /** SHA-256 of the random value in the starting browser's cookie. */
  binding: string;
}

const pendingKey = (s: Engines, state: string) => redisKey(s.config, 'sso', 'pending', sha256Hex(state));

async function enabledSettings(slug: string): Promise<SsoSettingsDoc> {
  const settings = await SsoSettings.findOne({ slug, enabled: true });
  if (!settings) throw identityErrors.sso_not_configured(`No organization signs in with SSO as "${slug.slice(0, 100)}"`);
  return settings;
}

/** The provider's authorization URL, and the value the browser keeps in a cookie until it comes back. */
export async function startSso(s: Engines, slug: string): Promise<{ location: string; binding: string }> {
  const settings = await enabledSettings(slug);
  let config: oidc.Configuration;
  try {
    config = await providerConfiguration(s, settings);
  } catch (err) {
    throw identityErrors.sso_provider_unavailable(err instanceof Error ? err.message : 'the provider could not be reached');
  }
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const binding = randomBytes(32).toString('base64url');
  const pending: PendingLogin = { settingsId: settings.id, nonce, verifier, binding: sha256Hex(binding) };
  await s.redis.set(pendingKey(s, state), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS);
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: ssoRedirectUri(s, settings.slug),
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { location: url.href, binding };
}

export interface SsoCallback {
  slug: string;
  /** The callback's query string, as the provider sent it. */
  query: URLSearchParams;
  /** The cookie set at the start, if the browser sent it back. */
  binding: string | undefined;
}

/** The pending login the state names, spent by this call whatever happens next. */
async function takePending(s: Engines, state: string | null): Promise<PendingLogin> {
  const failed = identityErrors.sso_sign_in_failed;
  if (!state) throw failed('The callback carries no state');
  const raw = await s.redis.getdel(pendingKey(s, state));
  if (!raw) throw failed('Unknown, expired or already used state: start the sign-in again');
  return JSON.parse(raw) as PendingLogin;
}

/** The claims openid-client has checked: signature, iss, aud, exp, nonce, and the code's PKCE. */
async function exchangeCode(s: Engines, settings: SsoSettingsDoc, cb: SsoCallback, pending: PendingLogin, state: string) {
  const config = await providerConfiguration(s, settings).catch((err: unknown) => {
    throw identityErrors.sso_provider_unavailable(err instanceof Error ? err.message : 'the provider could not be reached');
  });
  const current = new URL(ssoRedirectUri(s, settings.slug));
  current.search = cb.query.toString();
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.verifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    return claims;
  } catch (err) {
    throw identityErrors.sso_sign_in_failed(`The provider's answer was refused: ${providerFailure(err)}`);
  }
}

type Claims = NonNullable<Awaited<ReturnType<typeof exchangeCode>>>;

/** The role the provider's groups map to (the highest), else the settings' default. */
function roleFor(settings: SsoSettingsDoc, claims: Claims): 'admin' | 'member' | 'viewer' {
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : [];
  const mapped = settings.group_role_map.filter((m) => groups.includes(m.group ?? '')).map((m) => m.role);
  for (const role of ['admin', 'member', 'viewer'] as const) if (mapped.includes(role)) return role;
  return settings.default_role;
}

/** The verified email of an allowed domain a first sign-in may be linked by, or the refusal. */
function linkableEmail(settings: SsoSettingsDoc, claims: Claims): string {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || claims.email_verified !== true)
    throw identityErrors.sso_email_unverified('The provider did not vouch for the email address (email_verified is not true)');
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!settings.allowed_domains.includes(domain))
    throw identityErrors.sso_domain_not_allowed(`The domain ${domain} is not one this organization allows for SSO`);
  return email;
}

async function provision(s: Engines, settings: SsoSettingsDoc, claims: Claims, email: string): Promise<UserDoc> {
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email;
  const user = await User.create({
    organization_id: settings.organization_id,
    email,
    full_name: name,
    // A password nobody knows: this member signs in through the provider (or resets one by mail).
    password_hash: await hashPassword(randomBytes(32).toString('base64url')),
    role: roleFor(settings, claims),
    is_approved: true,
    joined_at: new Date(),
    email_verified_at: new Date(),
  });
  await recordEvent({
    organizationId: settings.organization_id.toHexString(),
    type: 'team.member_joined',
    data: { id: user.id, email: user.email, full_name: user.full_name, role: user.role, via: 'sso' },
    actor: { type: 'user', id: user.id, name: user.full_name },
    resource: { type: 'user', id: user.id },
    summary: `${user.full_name} joined the team as ${user.role} through SSO`,
  });
  return user;
}

/** Links (issuer, subject) to a member: an insert the unique index lets only one sign-in win. */
async function link(settings: SsoSettingsDoc, user: UserDoc, subject: string): Promise<void> {
  try {
    await SsoIdentity.create({ organization_id: settings.organization_id, user_id: user._id, issuer: settings.issuer, subject });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const owner = await SsoIdentity.findOne({ issuer: settings.issuer, subject }, { user_id: 1 }).lean();
    if (!owner?.user_id.equals(user._id)) throw identityErrors.sso_sign_in_failed('This provider account is linked to another member');
  }
}

export type SsoOutcome =
  { kind: 'signed_in'; body: Awaited<ReturnType<typeof signIn>> } | { kind: 'link_mailed'; body: { detail: string; link_required: true } };

export async function finishSso(s: Engines, cb: SsoCallback): Promise<SsoOutcome> {
  const settings = await enabledSettings(cb.slug);
  const state = cb.query.get('state');
  const pending = await takePending(s, state);
  if (pending.settingsId !== settings.id) throw identityErrors.sso_sign_in_failed('The state was issued for another organization');
  if (!cb.binding || !safeEqual(sha256Hex(cb.binding), pending.binding))
    throw identityErrors.sso_sign_in_failed('This browser did not start the sign-in (its SSO cookie is missing or different)');
  const claims = await exchangeCode(s, settings, cb, pending, state!);
  const known = await SsoIdentity.findOne({ issuer: settings.issuer, subject: claims.sub }).lean();
  if (known) {
    const user = await User.findOne({ _id: known.user_id, organization_id: settings.organization_id });
    if (!user) throw identityErrors.sso_other_organization('This provider account belongs to a member of another organization');
    return { kind: 'signed_in', body: await signIn(s, user) };
  }
  const email = linkableEmail(settings, claims);
  const existing = await User.findOne({ email });
  if (existing && !existing.organization_id.equals(settings.organization_id))
    throw identityErrors.sso_other_organization('This email address belongs to a member of another organization');
  if (existing) {
    await requestLink(s, settings, existing, claims.sub);
    return {
      kind: 'link_mailed',
      body: {
        detail: `A confirmation link was mailed to ${existing.email}: open it to sign in with SSO from now on`,
        link_required: true,
      },
    };
  }
  if (!settings.auto_provision)
    throw identityErrors.sso_not_provisioned('No member has this address, and the organization does not create members at first sign-in');
  let user: UserDoc;
  try {
    user = await provision(s, settings, claims, email);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    throw identityErrors.sso_sign_in_failed('A member with this address was created meanwhile: sign in again');
  }
  await link(settings, user, claims.sub);
  return { kind: 'signed_in', body: await signIn(s, user) };
}

/** A mailed confirmation before (issuer, subject) is linked to an account that has a password. */
async function requestLink(s: Engines, settings: SsoSettingsDoc, user: UserDoc, subject: string): Promise<void> {
  const token = opaqueToken();
  const expiresAt = new Date(Date.now() + LINK_TTL_MS);
  await SsoLinkRequest.create({
    organization_id: settings.organization_id,
    user_id: user._id,
    issuer: settings.issuer,
    subject,
    token_hash: sha256Hex(token),
    expires_at: expiresAt,
  });
  await mailSsoLink(s, user, token, expiresAt);
}

/** `POST /auth/sso/link/confirm`: the mailed token links the pair once, then signs the member in. */
export async function confirmSsoLink(s: Engines, token: string) {
  const request = await SsoLinkRequest.findOneAndDelete({ token_hash: sha256Hex(token) });
  if (!request || request.expires_at < new Date())
    throw identityErrors.sso_link_invalid('The link is unknown, used or expired: sign in with SSO again');
  const [settings, user] = await Promise.all([
    SsoSettings.findOne({ organization_id: request.organization_id, issuer: request.issuer }),
    User.findOne({ _id: request.user_id, organization_id: request.organization_id }),
  ]);
  if (!settings || !user) throw identityErrors.sso_link_invalid('The SSO settings or the member changed since: sign in with SSO again');
  await link(settings, user, request.subject);
  return signIn(s, user);
}
