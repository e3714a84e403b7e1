import { Schema, model } from 'mongoose';

/**
 * An exclusive claim (platform/claims.ts): one row per (scope, key) while someone holds it.
 * The unique index is what makes it exclusive, on MongoDB and on FerretDB alike; a conditional
 * update would not be on FerretDB 1.24, which applies it as a read and a separate write.
 */
const schema = new Schema(
  {
    scope: { type: String, required: true },
    key: { type: String, required: true },
    /** This taking's own random token: a release or an extension touches only its own row. */
    holder: { type: String, required: true },
    /** Until when the holder is trusted to be alive; after it, the next taker removes the row. */
    expires_at: { type: Date, required: true },
    /** What the holder does, for whoever finds the claim taken (e.g. the running workflow's id). */
    detail: { type: String, default: null },
    taken_at: { type: Date, required: true, default: () => new Date() },
  },
  { versionKey: false },
);
schema.index({ scope: 1, key: 1 }, { unique: true });

export const Claim = model('Claim', schema, 'claims');
