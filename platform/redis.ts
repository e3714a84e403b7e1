import { Redis } from 'ioredis';
import type { Config } from './config';
import type { Logger } from './logger';

/**
 * The shared Redis client (rate limits, the token blacklist, the authentication cache, locks). Commands
 * fail fast while Redis is down instead of queueing, so callers can degrade.
 */
/** A key in this deployment's namespace: `<REDIS_KEY_PREFIX>:<parts...>`. */
export function redisKey(config: Pick<Config, 'REDIS_KEY_PREFIX'>, ...parts: string[]): string {
  return [config.REDIS_KEY_PREFIX, ...parts].join(':');
}

export function createRedis(config: Pick<Config, 'REDIS_URL'>, logger: Logger): Redis {
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let warned = false;
  redis.on('error', (err: Error) => {
    if (!warned) logger.warn({ err: err.message }, 'redis unavailable');
    warned = true;
  });
  redis.on('ready', () => {
    warned = false;
  });
  return redis;
}
