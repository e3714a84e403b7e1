import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin } from './base';

/**
 * Token ids (JWT `jti`) that must no longer be accepted: logged-out access tokens and
 * spent MFA tokens. The store is the source of truth (it survives restarts); Redis caches
 * it. Rows disappear once the token would have expired anyway.
 */
const schema = new Schema({
  jti: { type: String, required: true, unique: true },
  reason: { type: String, enum: ['logout', 'mfa_used'], required: true },
  expires_at: { type: Date, required: true },
});
schema.plugin(basePlugin);
schema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export type RevokedTokenDoc = InferSchemaType<typeof schema>;
export const RevokedToken = model('RevokedToken', schema, 'revoked_tokens');
