/**
 * A short mutual-exclusion lock in Redis (SET NX PX), for check-then-write sequences the
 * store cannot make atomic: FerretDB 1.24 applies a conditional update as a read and a
 * separate write, so two of them can both pass their condition. The lock expires by
 * itself if its holder dies, and only the holder releases it.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** Not acquired: still held by another after `waitMs`, or Redis cannot be reached. */
export class LockUnavailableError extends Error {}

export interface LockOptions {
  /** How long the lock lives if never released: longer than `fn` takes. */
  ttlMs: number;
  /** Give up (LockUnavailableError) after waiting this long; waits for ever when unset. */
  waitMs?: number;
  /** How to wait between attempts (an activity passes its cancellable sleep). */
  sleep?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withLock<T>(redis: Redis, key: string, opts: LockOptions, fn: () => Promise<T>): Promise<T> {
  const token = randomUUID();
  const deadline = opts.waitMs === undefined ? Infinity : Date.now() + opts.waitMs;
  const acquire = () =>
    redis.set(key, token, 'PX', opts.ttlMs, 'NX').catch((err: unknown) => {
      throw new LockUnavailableError(`lock ${key}: ${(err as Error).message}`);
    });
  while ((await acquire()) !== 'OK') {
    if (Date.now() >= deadline) throw new LockUnavailableError(`lock ${key} is busy`);
    await (opts.sleep ?? pause)(50);
  }
  try {
    return await fn();
  } finally {
    // Best effort: a lock that cannot be released expires by itself.
    await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}
