import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * One refresh token, stored as its SHA-256. Tokens rotate within a family (one login);
 * presenting a used or revoked one revokes the whole family (theft detection).
 */
const schema = new Schema({
  ...tenantFields,
  user_id: { type: Schema.Types.ObjectId, required: true, index: true },
  family_id: { type: String, required: true, index: true },
  token_hash: { type: String, required: true, unique: true },
  /** The family's absolute end: rotation never extends a login past it. */
  expires_at: { type: Date, required: true },
  used_at: { type: Date, default: null },
  revoked_at: { type: Date, default: null },
});
schema.plugin(basePlugin, { hidden: ['token_hash'] });
schema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export type RefreshTokenDoc = InferSchemaType<typeof schema>;
export const RefreshToken = model('RefreshToken', schema, 'refresh_tokens');
