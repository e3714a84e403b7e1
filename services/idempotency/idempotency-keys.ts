/**
 * The stored side of `Idempotency-Key` (api/http/middleware/idempotency.ts): a request claims
 * its principal's key with an in-flight row, then keeps its answer there for a repeat to
 * replay, or releases the key when there is nothing to keep.
 */
import { trusted } from 'mongoose';
import { IDEMPOTENCY_TTL_SECONDS, IdempotencyKey, type IdempotencyKeyDoc } from '../../models/idempotency-key';
import { isDuplicateKey } from '../../platform/mongo';

/** Inserts the in-flight row, or returns the live row someone else holds for this key. */
export async function claimIdempotencyKey(scope: string, key: string, fingerprint: string): Promise<IdempotencyKeyDoc | null> {
  await IdempotencyKey.init();
  await IdempotencyKey.deleteMany({ scope, expires_at: trusted({ $lt: new Date() }) });
  for (;;) {
    try {
      await IdempotencyKey.create({
        scope,
        key,
        fingerprint,
        state: 'in_flight',
        expires_at: new Date(Date.now() + IDEMPOTENCY_TTL_SECONDS * 1000),
      });
      return null;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const existing = await IdempotencyKey.findOne({ scope, key }).lean();
    if (existing && existing.expires_at > new Date()) return existing;
    if (existing) await IdempotencyKey.deleteOne({ _id: existing._id, expires_at: existing.expires_at });
  }
}

/** The answer a repeat replays. */
export interface KeptAnswer {
  status: number;
  body: unknown;
  error_code: string | null;
}

export async function keepIdempotentAnswer(scope: string, key: string, answer: KeptAnswer): Promise<void> {
  await IdempotencyKey.updateOne({ scope, key }, { $set: { state: 'done', ...answer } });
}

/** Frees a key still in flight, so the client can try again. */
export async function releaseIdempotencyKey(scope: string, key: string): Promise<void> {
  await IdempotencyKey.deleteOne({ scope, key, state: 'in_flight' });
}
