import { Schema, model, type InferSchemaType } from 'mongoose';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/**
 * The first answer to a creating POST sent with an `Idempotency-Key`, per principal and
 * key. The unique index makes the first request the only one that runs; repeats replay
 * `status` and `body`. Rows expire after 24 h: reads ignore expired rows and each new
 * claim sweeps its principal's expired ones (FerretDB 1.24 has no TTL indexes).
 */
const schema = new Schema({
  /** `user:<id>` or `api_key:<id>`. */
  scope: { type: String, required: true },
  key: { type: String, required: true },
  /** SHA-256 of method, path and canonical body: the same key with another request is a conflict. */
  fingerprint: { type: String, required: true },
  state: { type: String, enum: ['in_flight', 'done'], required: true },
  status: { type: Number, default: null },
  body: { type: Schema.Types.Mixed, default: null },
  /** The X-Error-Code of a stored refusal, replayed with it. */
  error_code: { type: String, default: null },
  expires_at: { type: Date, required: true },
});
schema.index({ scope: 1, key: 1 }, { unique: true });
schema.index({ scope: 1, expires_at: 1 });

export type IdempotencyKeyDoc = InferSchemaType<typeof schema>;
export const IdempotencyKey = model('IdempotencyKey', schema, 'idempotency_keys');
