/**
 * The spec's rate limits, counted in Redis so every API instance shares them
 * (rate-limiter-flexible), with an in-process limiter as insurance while Redis is down.
 * Keyed on the credential's principal (user or API key), else the client address;
 * login is also counted per email. Every response carries the X-RateLimit-* headers
 * of the tightest counter; a 429 adds Retry-After.
 */
import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Services } from '../../lib/services';
import { sha256Hex } from '../../lib/crypto';
import { redisKey } from '../../lib/redis';
import { isApiKey, verifyToken } from '../../lib/tokens';
import { AppError } from '../errors';
import { bearerOf } from './auth';

interface Limit {
  name: string;
  points: number;
  durationSeconds: number;
  /** The counters a request consumes, e.g. `ip:10.0.0.1`. */
  keys: (req: Request) => string[];
}

const byAddress = (req: Request) => [`ip:${req.ip ?? 'unknown'}`];

/** The caller's identity when the credential is at least well-formed and signed; no store lookup. */
function byPrincipal(s: Services) {
  return (req: Request) => {
    const bearer = bearerOf(req);
    if (bearer && isApiKey(bearer)) return [`key:${sha256Hex(bearer)}`];
    const claims = bearer ? verifyToken(s.config, 'access', bearer) : null;
    return claims ? [`user:${claims.sub}`] : byAddress(req);
  };
}

const loginKeys = (req: Request) => {
  const email: unknown = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? [...byAddress(req), `email:${email.trim().toLowerCase()}`] : byAddress(req);
};

function limiterFor(s: Services, limit: Limit) {
  const options = { points: limit.points, duration: limit.durationSeconds, keyPrefix: redisKey(s.config, 'rl', limit.name) };
  return new RateLimiterRedis({ ...options, storeClient: s.redis, insuranceLimiter: new RateLimiterMemory(options) });
}

function setHeaders(res: Response, points: number, r: RateLimiterRes) {
  res.setHeader('X-RateLimit-Limit', String(points));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
}

export function rateLimits(s: Services): RequestHandler {
  const c = s.config;
  const special: Record<string, Limit> = {
    'POST /auth/login': { name: 'login', points: c.RATE_LIMIT_LOGIN_PER_MINUTE, durationSeconds: 60, keys: loginKeys },
    'POST /auth/register': { name: 'register', points: c.RATE_LIMIT_REGISTER_PER_MINUTE, durationSeconds: 60, keys: byAddress },
    'POST /auth/password/reset-request': { name: 'password-reset', points: c.RATE_LIMIT_PASSWORD_RESET_PER_5_MINUTES, durationSeconds: 300, keys: byAddress },
  };
  const fallback: Limit = { name: 'default', points: c.RATE_LIMIT_DEFAULT_PER_MINUTE, durationSeconds: 60, keys: byPrincipal(s) };
  const limiters = new Map([...Object.values(special), fallback].map((l) => [l, limiterFor(s, l)] as const));

  return async (req, res, next) => {
    const limit = special[`${req.method} ${req.path}`] ?? fallback;
    const limiter = limiters.get(limit)!;
    const results = await Promise.all(
      limit.keys(req).map((key) =>
        limiter.consume(key).then(
          (r) => ({ ok: true, r }),
          (err: unknown) => {
            if (err instanceof RateLimiterRes) return { ok: false, r: err };
            throw err;
          },
        ),
      ),
    );
    // The counter closest to its limit speaks for the request.
    const tightest = results.reduce((a, b) => (b.r.remainingPoints < a.r.remainingPoints || (!b.ok && a.ok) ? b : a));
    setHeaders(res, limit.points, tightest.r);
    const refused = results.filter((x) => !x.ok);
    if (refused.length) {
      const wait = Math.max(...refused.map((x) => x.r.msBeforeNext));
      throw new AppError(429, 'Too many requests; try again later', { 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))) });
    }
    next();
  };
}
