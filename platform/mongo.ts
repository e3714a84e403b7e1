import mongoose from 'mongoose';
import type { Config } from './config';
import type { Logger } from './logger';

/**
 * Connects mongoose, retrying while the store starts (containers and the local stack
 * often come up together). Operations fail after 5 s without a server instead of
 * queueing forever, so an outage becomes a 503 rather than a hung request.
 */
export async function connectMongo(config: Pick<Config, 'MONGODB_URI'>, logger: Logger, maxWaitMs = 60000) {
  mongoose.set('strictQuery', true);
  mongoose.set('sanitizeFilter', true);
  const deadline = Date.now() + maxWaitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await mongoose.connect(config.MONGODB_URI, { serverSelectionTimeoutMS: 5000, bufferCommands: false });
      return mongoose.connection;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      logger.warn({ attempt, err: (err as Error).message }, 'store not reachable yet; retrying');
      await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 5000)));
    }
  }
}

/**
 * Whether the store is FerretDB rather than MongoDB: FerretDB's `buildInfo` answer carries
 * `ferretdbVersion` (1.24 answers `"unknown"`, but the field is there).
 */
export async function isFerretDb(): Promise<boolean> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('store not connected');
  return 'ferretdbVersion' in (await db.admin().command({ buildInfo: 1 }));
}

export async function pingMongo(timeoutMs: number): Promise<boolean> {
  const db = mongoose.connection.db;
  if (!db) return false;
  return withTimeout(
    db.command({ ping: 1 }).then(() => true),
    timeoutMs,
  );
}

/** Resolves false when the promise rejects or takes longer than `ms`. */
export function withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([p.catch(() => false), timeout]).finally(() => clearTimeout(timer));
}

/** A write refused by a unique index: the record, or the claim it stands for, already exists. */
export const isDuplicateKey = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 11000;
