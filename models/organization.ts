import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin } from './base';

/** A tenant: every tenant-owned record carries its id. */
const schema = new Schema({
  name: { type: String, required: true },
  /** Every member must pass a TOTP check at login. */
  mfa_required: { type: Boolean, default: false },
  /** Days before a contract's opt-out deadline its owner is reminded. */
  renewal_reminder_days: { type: [Number], default: () => [90, 60, 30, 7] },
  /** What happens to the API keys a member made when they leave: revoked, or handed to an owner. */
  leaver_api_keys: { type: String, enum: ['revoke', 'transfer'], default: 'revoke' },
});
schema.plugin(basePlugin);

export type OrganizationDoc = InferSchemaType<typeof schema>;
export const Organization = model('Organization', schema, 'organizations');
