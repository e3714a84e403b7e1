/**
 * CSRF tokens for server-rendered forms without accounts (the signing page): a random
 * browser id in a SameSite=Strict, HttpOnly cookie, and in each form an HMAC of that id
 * and the form's scope (the signing link's hash). A forged cross-site post has neither the
 * cookie's value nor the key, and a token lifted from one link's form fails on another.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../config';
import { legacyMacKey, purposeKey, safeEqual } from './crypto';

const COOKIE = 'csrf_id';
const ID = /^[A-Za-z0-9_-]{32}$/;

/** The browser's id from its cookie, or null. */
export function browserIdOf(req: Request): string | null {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === COOKIE) {
      const value = part.slice(eq + 1).trim();
      return ID.test(value) ? value : null;
    }
  }
  return null;
}

/** The form token for `scope` in the browser `id`. */
export const csrfToken = (config: Pick<Config, 'ENCRYPTION_KEY'>, id: string, scope: string): string =>
  createHmac('sha256', purposeKey(config, 'hmac/csrf')).update(`csrf:${id}:${scope}`).digest('base64url');

/**
 * The browser's id, setting its cookie under `path` when the browser has none. The cookie is
 * `Secure` when the request came over TLS (as a trusted proxy's X-Forwarded-Proto says), and
 * always when PUBLIC_BASE_URL is https: browsers then reach the page over TLS, even through a
 * proxy the service was not told to trust.
 */
export function issueBrowserId(config: Pick<Config, 'PUBLIC_BASE_URL'>, req: Request, res: Response, path: string): string {
  let id = browserIdOf(req);
  if (!id) {
    id = randomBytes(24).toString('base64url');
    const secure = req.secure || config.PUBLIC_BASE_URL.startsWith('https:');
    res.cookie(COOKIE, id, { httpOnly: true, sameSite: 'strict', secure, path, maxAge: 24 * 3600 * 1000 });
  }
  return id;
}

export function csrfValid(config: Pick<Config, 'ENCRYPTION_KEY'>, id: string | null, scope: string, given: unknown): boolean {
  if (id === null || typeof given !== 'string') return false;
  // A form served before the keys were separated (platform/security/crypto.ts) still posts.
  const legacy = createHmac('sha256', legacyMacKey(config)).update(`csrf:${id}:${scope}`).digest('base64url');
  return safeEqual(given, csrfToken(config, id, scope)) || safeEqual(given, legacy);
}
