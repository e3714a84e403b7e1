import pino from 'pino';
import type { Config } from './config';

export type Logger = pino.Logger;

/** Structured JSON logs; secrets that may pass through request logging are redacted. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'version'>, name = 'api'): Logger {
  return pino({
    name,
    level: config.LOG_LEVEL,
    base: { service: 'contract-service', version: config.version, component: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret', '*.token'],
  });
}

/** Secret path segments: the token of a signing link (/signatures/sign/<token>[/decline]). */
export const redactUrl = (url: string) => url.replace(/(\/sign\/)[^/?#]+/g, '$1[redacted]');

/** The request log's `req` without secrets in the path (pino-http's request serializer). */
export function redactedRequest<R extends { url: string }>(req: R): R {
  req.url = redactUrl(req.url);
  return req;
}
