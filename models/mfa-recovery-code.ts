import { Schema, model } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * One single-use MFA recovery code of a user, kept as its SHA-256 (the codes carry 80
 * random bits, so a fast hash suffices, as for API keys). One record per code: spending
 * it is a delete, which the store counts atomically, where an update of a list is not.
 */
const schema = new Schema({
  ...tenantFields,
  user_id: { type: Schema.Types.ObjectId, required: true },
  code_hash: { type: String, required: true },
});
schema.plugin(basePlugin, { hidden: ['code_hash'] });
schema.index({ user_id: 1, code_hash: 1 }, { unique: true });

export const MfaRecoveryCode = model('MfaRecoveryCode', schema, 'mfa_recovery_codes');
