/**
 * The spec's rate limits, counted in Redis so every API instance shares them
 * (rate-limiter-flexible), with an in-process limiter as insurance while Redis is down.
 *
 * Request limits are middleware attached to the routes themselves, so every spelling that
 * Express routes to a handler (`/auth/login/`, `/Auth/Login`) counts, and they run before
 * the body is read. Login, register and reset requests count per client address; all
 * others per principal: a user whose access token verifies, an API key that exists, else
 * the address. A principal's requests also count against its organization's ceiling, which
 * its users and keys share, so minting keys buys no throughput. Every response carries its
 * limit's X-RateLimit-* headers; a 429 adds Retry-After.
 *
 * An address is an IPv4 address (an IPv4-mapped IPv6 one counts as IPv4), or the /64 of an
 * IPv6 one: one subscriber usually holds a whole /64, so its single addresses cost nothing.
 *
 * Failed logins and MFA codes are counted apart, after the request limit (OWASP's login
 * protection, as in rate-limiter-flexible's "login endpoint protection" example):
 * - per account and address: a few failures refuse that address for that account; a
 *   correct password clears them;
 * - per account, from any address: more failures than one address may make refuse the
 *   account's logins for the rest of the window, except from addresses it signed in from
 *   lately. One address alone can therefore never lock anybody out;
 * - per address: failures over a day, against spraying one password over many accounts;
 * - MFA codes per account.
 * A refused attempt is not tried and leaves every counter as it was.
 */
import type { Request, RequestHandler, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Engines } from '../../../platform/engines';
import { sha256Hex } from '../../../platform/security/crypto';
import { redisKey } from '../../../platform/redis';
import { isApiKey, verifyToken } from '../../../services/identity/tokens';
import { apiKeyOrganization } from '../../../services/identity/authenticate-api-key';
import { AppError, isAppError, retryAfter } from '../../../platform/errors';
import { identityErrors } from '../../../services/identity/errors';
import { bearerOf } from './auth';

interface Window {
  points: number;
  seconds: number;
}

const MINUTES = 60;
/** Failures allowed before refusing; the windows are fixed, starting at the first failure. */
export const FAILURE_LIMITS = {
  loginPerAccountAndAddress: { points: 5, seconds: 15 * MINUTES },
  /** Above loginPerAccountAndAddress, so that locking an account takes more than one address. */
  loginPerAccount: { points: 10, seconds: 15 * MINUTES },
  loginPerAddress: { points: 100, seconds: 24 * 60 * MINUTES },
  mfaPerAccount: { points: 5, seconds: 15 * MINUTES },
} satisfies Record<string, Window>;
/** How long a successful password login exempts its address from the account-wide lock. */
const KNOWN_ADDRESS_SECONDS = 30 * 24 * 60 * MINUTES;

/** The client's address as limits count it: IPv4 as it is, IPv6 by its /64. */
export function addressBucket(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return ip ?? 'unknown';
  // process() turns an IPv4-mapped IPv6 address (::ffff:a.b.c.d) into the IPv4 one.
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const net = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${net.join(':')}::/64`;
}

const addressKey = (req: Request) => `ip:${addressBucket(req.ip)}`;

function counter(s: Engines, name: string, window: Window) {
  const options = { points: window.points, duration: window.seconds, keyPrefix: redisKey(s.config, 'rl', name) };
  return {
    ...window,
    limiter: new RateLimiterRedis({ ...options, storeClient: s.redis, insuranceLimiter: new RateLimiterMemory(options) }),
  };
}
type Counter = ReturnType<typeof counter>;

const tooMany = (msBeforeNext: number, detail: string) => new AppError('rate_limited', detail, retryAfter(msBeforeNext));

function setHeaders(res: Response, points: number, r: RateLimiterRes) {
  res.setHeader('X-RateLimit-Limit', String(points));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
}

/** Whom a request counts on, and the organization it also counts against (none for an address). */
interface Bucket {
  key: string;
  organizationId?: string;
}

/**
 * Counts every request on the bucket `bucketOf` picks and refuses past the window's points;
 * with `ceiling`, a request of an organization's principal also takes a point from the
 * organization's window (only when its own limit let it through) and is refused past that.
 */
function requestLimit(
  s: Engines,
  name: string,
  window: Window,
  bucketOf: (req: Request) => Bucket | Promise<Bucket>,
  ceiling?: Window,
): RequestHandler {
  const { limiter } = counter(s, name, window);
  const organization = ceiling && counter(s, `${name}-organization`, ceiling);
  return async (req, res, next) => {
    const { key, organizationId } = await bucketOf(req);
    try {
      setHeaders(res, window.points, await limiter.consume(key));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      setHeaders(res, window.points, err);
      throw tooMany(err.msBeforeNext, 'Too many requests; try again later');
    }
    if (organization && organizationId) {
      try {
        await organization.limiter.consume(`org:${organizationId}`);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        // The headers then describe the ceiling that refused.
        setHeaders(res, organization.points, err);
        throw identityErrors.organization_rate_limited(
          `This organization's users and API keys together made ${organization.points} requests this minute, the most allowed; try again later`,
          retryAfter(err.msBeforeNext),
        );
      }
    }
    next();
  };
}

const byAddress = (req: Request): Bucket => ({ key: addressKey(req) });

/** A failure counter an attempt is held against; `enforce: false` counts without refusing. */
interface Hold {
  counter: Counter;
  key: string;
  enforce: boolean;
}

const isFailure = (err: unknown) => isAppError(err, 'unauthenticated');

/**
 * Runs `attempt` when none of the enforced counters is spent. Each counter takes a point
 * first (so concurrent attempts cannot all slip under a limit) and gets it back unless
 * the attempt fails with a 401: a refused or successful attempt leaves them as they were.
 */
async function holdAgainst<T>(holds: Hold[], refusal: string, attempt: () => Promise<T>): Promise<T> {
  const taken = await Promise.all(holds.map((h) => h.counter.limiter.penalty(h.key)));
  const giveBack = () => Promise.all(holds.map((h) => h.counter.limiter.reward(h.key)));
  const spent = taken.filter((r, i) => holds[i]!.enforce && r.consumedPoints > holds[i]!.counter.points);
  if (spent.length) {
    await giveBack();
    throw tooMany(Math.max(...spent.map((r) => r.msBeforeNext)), refusal);
  }
  try {
    const result = await attempt();
    await giveBack();
    return result;
  } catch (err) {
    if (!isFailure(err)) await giveBack();
    throw err;
  }
}

export interface RateLimits {
  login: RequestHandler;
  register: RequestHandler;
  passwordReset: RequestHandler;
  /** 60 a minute per principal: every route without a limit of its own. */
  default: RequestHandler;
  /** New email verification links, per principal (each one is a message to the address). */
  verificationResend: RequestHandler;
  /** A password check (401 on a wrong one) under the login failure limits; needs the parsed body's email. */
  loginAttempt: <T>(req: Request, attempt: () => Promise<T>) => Promise<T>;
  /** An MFA code check (401 on a wrong one) under the per-account MFA limit; needs the parsed body's mfa_token. */
  mfaAttempt: <T>(req: Request, attempt: () => Promise<T>) => Promise<T>;
  /** The same, for a user the caller already knows (the approval page's approver): one limit for every way in. */
  userMfaAttempt: <T>(userId: string, attempt: () => Promise<T>) => Promise<T>;
}

export function rateLimits(s: Engines): RateLimits {
  const c = s.config;
  /** The caller's identity and organization when the credential is a verified token or an existing API key; else the address. */
  const principalBucket = async (req: Request): Promise<Bucket> => {
    const bearer = bearerOf(req);
    if (bearer && isApiKey(bearer)) {
      const hash = sha256Hex(bearer);
      const organizationId = await apiKeyOrganization(hash);
      return organizationId ? { key: `key:${hash}`, organizationId } : byAddress(req);
    }
    const claims = bearer ? verifyToken(c, 'access', bearer) : null;
    return claims ? { key: `user:${claims.sub}`, organizationId: claims.org } : byAddress(req);
  };

  const failures = {
    pair: counter(s, 'login-fail-account-address', FAILURE_LIMITS.loginPerAccountAndAddress),
    account: counter(s, 'login-fail-account', FAILURE_LIMITS.loginPerAccount),
    address: counter(s, 'login-fail-address', FAILURE_LIMITS.loginPerAddress),
    mfa: counter(s, 'mfa-fail-account', FAILURE_LIMITS.mfaPerAccount),
  };

  const userMfaAttempt = <T>(userId: string, attempt: () => Promise<T>) =>
    holdAgainst([{ counter: failures.mfa, key: `user:${userId}`, enforce: true }], 'Too many wrong codes; try again later', attempt);

  return {
    login: requestLimit(s, 'login', { points: c.RATE_LIMIT_LOGIN_PER_MINUTE, seconds: MINUTES }, byAddress),
    register: requestLimit(s, 'register', { points: c.RATE_LIMIT_REGISTER_PER_MINUTE, seconds: MINUTES }, byAddress),
    passwordReset: requestLimit(
      s,
      'password-reset',
      { points: c.RATE_LIMIT_PASSWORD_RESET_PER_5_MINUTES, seconds: 5 * MINUTES },
      byAddress,
    ),
    verificationResend: requestLimit(
      s,
      'verification-resend',
      { points: c.RATE_LIMIT_PASSWORD_RESET_PER_5_MINUTES, seconds: 5 * MINUTES },
      principalBucket,
    ),
    default: requestLimit(s, 'default', { points: c.RATE_LIMIT_DEFAULT_PER_MINUTE, seconds: MINUTES }, principalBucket, {
      points: c.RATE_LIMIT_ORGANIZATION_PER_MINUTE,
      seconds: MINUTES,
    }),

    async loginAttempt(req, attempt) {
      const email: unknown = (req.body as { email?: unknown } | undefined)?.email;
      // Not an email: the handler answers 400 without checking a password.
      if (typeof email !== 'string') return attempt();
      // Keyed whether or not the account exists, so a refusal tells nothing about it.
      const account = `account:${sha256Hex(email.toLowerCase())}`;
      const address = addressKey(req);
      const known = redisKey(c, 'login-known', account, address);
      const isKnown = (await s.redis.exists(known).catch(() => 0)) === 1;
      const result = await holdAgainst(
        [
          { counter: failures.pair, key: `${account}:${address}`, enforce: true },
          { counter: failures.account, key: account, enforce: !isKnown },
          { counter: failures.address, key: address, enforce: true },
        ],
        'Too many failed logins; try again later',
        attempt,
      );
      // The password was right: this address's failures for the account are forgiven, and it is exempt from the account-wide lock.
      await Promise.all([
        failures.pair.limiter.delete(`${account}:${address}`),
        s.redis.set(known, '1', 'EX', KNOWN_ADDRESS_SECONDS).catch(() => undefined),
      ]);
      return result;
    },

    async mfaAttempt(req, attempt) {
      const token: unknown = (req.body as { mfa_token?: unknown } | undefined)?.mfa_token;
      // Only a signed MFA token names an account (one whose password was just given); anything else is a plain 401.
      const claims = typeof token === 'string' ? verifyToken(c, 'mfa', token) : null;
      if (!claims) return attempt();
      return userMfaAttempt(claims.sub, attempt);
    },
    userMfaAttempt,
  };
}
