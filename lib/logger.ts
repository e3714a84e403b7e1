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
