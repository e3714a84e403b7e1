/**
 * The organization's OpenID provider, through openid-client (a certified relying party): its
 * discovery document and keys, fetched only from addresses the URL policy allows. Plain http is
 * accepted where private addresses are (the local stack and its tests), never in production.
 */
import * as oidc from 'openid-client';
import type { Engines } from '../../platform/engines';
import { decryptSecret } from '../../platform/security/crypto';
import { policyFetch } from '../../platform/security/policy-fetch';
import { connectionFailure } from '../../platform/security/url-policy';
import type { SsoSettingsDoc } from '../../models/sso-settings';

const PROVIDER_TIMEOUT_MS = 10_000;
/** A provider rotates keys by publishing the new one first; openid-client refetches the JWKS on an unknown `kid`. */
const DISCOVERY_TTL_MS = 10 * 60_000;

const cache = new Map<string, { at: number; config: oidc.Configuration }>();

const guardedFetch = (s: Engines) => policyFetch({ allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS }, PROVIDER_TIMEOUT_MS);

function providerFetch(s: Engines): oidc.CustomFetch {
  const fetch = guardedFetch(s);
  return (url, options) => fetch(url, options);
}

/** The client's configuration at the provider, discovered at most every ten minutes per settings revision. */
export async function providerConfiguration(
  s: Engines,
  settings: SsoSettingsDoc,
  opts: { fresh?: boolean } = {},
): Promise<oidc.Configuration> {
  const key = `${settings.id}:${(settings.get('updated_at') as Date).getTime()}`;
  const hit = cache.get(key);
  if (hit && !opts.fresh && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
  const fetch = providerFetch(s);
  const insecure = s.config.ALLOW_PRIVATE_WEBHOOK_URLS && settings.issuer.startsWith('http:');
  const secret = settings.client_secret_sealed ? decryptSecret(s.config, settings.client_secret_sealed) : null;
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(settings.issuer),
      settings.client_id,
      undefined,
      secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
      {
        [oidc.customFetch]: fetch,
        // oauth4webapi trusts TLS for an ID token from the token endpoint (OIDC Core 3.1.3.7 allows it);
        // the signature is checked against the provider's JWKS all the same.
        execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])],
      },
    );
  } catch (err) {
    throw new Error(`the provider's discovery document could not be read: ${providerFailure(err)}`, { cause: err });
  }
  config[oidc.customFetch] = fetch;
  config.timeout = PROVIDER_TIMEOUT_MS / 1000;
  cache.set(key, { at: Date.now(), config });
  return config;
}

/** What a failed provider call may tell an admin: openid-client's own words, or the kind of network failure. */
export function providerFailure(err: unknown): string {
  if (err instanceof oidc.ResponseBodyError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  if (err instanceof oidc.ClientError && !(err.cause instanceof Error)) return err.message;
  return connectionFailure(err);
}

/** The discovery document and the JWKS, read now, for `POST /settings/sso/test`. */
export async function discoverProvider(s: Engines, settings: SsoSettingsDoc, opts: { fresh?: boolean } = {}) {
  const config = await providerConfiguration(s, settings, opts);
  const meta = config.serverMetadata();
  if (!meta.jwks_uri) throw new Error('the discovery document names no jwks_uri');
  let keys: number;
  try {
    const res = await guardedFetch(s)(meta.jwks_uri, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`the JWKS answered ${res.status}`);
    const body = (await res.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('the JWKS holds no keys array');
    keys = body.keys.length;
  } catch (err) {
    throw new Error(`the provider's keys could not be read: ${providerFailure(err)}`, { cause: err });
  }
  return {
    issuer: meta.issuer,
    authorization_endpoint: meta.authorization_endpoint ?? null,
    token_endpoint: meta.token_endpoint ?? null,
    jwks_uri: meta.jwks_uri,
    keys,
    id_token_signing_alg_values_supported: meta.id_token_signing_alg_values_supported ?? [],
    code_challenge_methods_supported: meta.code_challenge_methods_supported ?? [],
  };
}
