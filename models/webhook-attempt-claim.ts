import { Schema, model } from 'mongoose';

/**
 * One row per delivery attempt that was made. The unique index is the claim: an attempt
 * that runs twice (a retried workflow task, a second worker) inserts once, so it posts once.
 * A conditional update cannot serve here: FerretDB 1.24 lets two concurrent ones both match.
 */
const schema = new Schema({
  delivery_id: { type: Schema.Types.ObjectId, required: true },
  attempt: { type: Number, required: true },
  claimed_at: { type: Date, required: true, default: () => new Date() },
});
schema.index({ delivery_id: 1, attempt: 1 }, { unique: true });

export const WebhookAttemptClaim = model('WebhookAttemptClaim', schema, 'webhook_attempt_claims');
