import pino from 'pino';
import type { Config } from './config';

export type Logger = pino.Logger;

/** Structured JSON logs; secrets that may pass through request logging are redacted. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'version'>, name = 'api', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: config.LOG_LEVEL,
    base: { service: 'contract-service', version: config.version, component: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret', '*.token'],
  };
  return destination ? pino(options, destination) : pino(options);
}

const REDACTED = '[redacted]';

/**
 * Path segments that are secrets: the token after `/sign/` (the JSON API and the human page),
 * `/invite/`, `/reset-password/` and `/verify-email/` (the front end's links in mail, should one reach the API).
 */
const SECRET_SEGMENT = /(\/(?:sign|invite|reset-password|verify-email)\/)[^/?#]+/gi;
/** An approver's personal link, `/approvals/<id>/<token>` (its token has dots; `/approvals/<id>/approve` keeps its verb). */
const APPROVAL_LINK = /(\/approvals\/[^/?#]+\/)[^/?#]*\.[^/?#]*/gi;

/** Query parameters whose values are secrets (links with tokens, invite and reset codes, keys). */
const SECRET_PARAM = /token|secret|password|code|key|signature|otp/i;

/**
 * A request URL as it may be logged: the token of a link (`/signatures/sign/<token>`,
 * `/sign/<token>`, `/invite/<token>`, `/reset-password/<token>`, `/approvals/<id>/<token>`) and the values of secret-looking query parameters (`?token=`,
 * `invite_token`, `code`, ...) replaced by `[redacted]`. The bytes are not decoded, so the
 * rest of the URL logs as it arrived.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(SECRET_SEGMENT, `$1${REDACTED}`).replace(APPROVAL_LINK, `$1${REDACTED}`);
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && SECRET_PARAM.test(name) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** `redactUrl` for parsed query and route parameters: secret-looking names keep only their name. */
function redactParams(params: unknown): unknown {
  if (!params || typeof params !== 'object') return params;
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, SECRET_PARAM.test(k) ? REDACTED : v]));
}

/**
 * pino-http's `req` serializer, over the standard one's fresh copy: URL, query and route
 * parameters redacted, and the `Referer` like a URL (a page opened from a signing or reset
 * link names that link in its next request).
 */
export function redactRequest<T extends { url?: string; query?: unknown; params?: unknown; headers?: Record<string, unknown> }>(req: T): T {
  if (req.url !== undefined) req.url = redactUrl(req.url);
  if (req.headers && typeof req.headers.referer === 'string') req.headers = { ...req.headers, referer: redactUrl(req.headers.referer) };
  req.query = redactParams(req.query);
  req.params = redactParams(req.params);
  return req;
}

/** pino-http's `res` serializer: a redirect's `Location` (the signing page answers a post with its own link) redacted like a URL, cookies dropped. */
export function redactResponse<T extends { headers?: Record<string, unknown> }>(res: T): T {
  const headers = res.headers;
  if (headers) {
    if (typeof headers.location === 'string') headers.location = redactUrl(headers.location);
    if (headers['set-cookie'] !== undefined) headers['set-cookie'] = REDACTED;
  }
  return res;
}
