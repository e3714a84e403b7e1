import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const AUDIT_CATEGORIES = ['auth', 'membership', 'api_keys', 'settings', 'scim', 'exports'] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];

/**
 * One row of an organization's identity audit log: who did what with access, from where, and
 * how it ended. Rows are hash-chained per organization (platform/security/hash-chain.ts); the
 * unique (organization, seq) index makes each append exclusive, so two appends never fork the chain.
 */
const schema = new Schema({
  ...tenantFields,
  seq: { type: Number, required: true },
  at: { type: Date, required: true },
  category: { type: String, enum: AUDIT_CATEGORIES, required: true },
  actor: { type: new Schema({ type: String, id: String, name: String }, { _id: false }), required: true },
  ip: { type: String, default: null },
  user_agent: { type: String, default: null },
  action: { type: String, required: true },
  target: { type: String, default: null },
  result: { type: String, enum: ['success', 'failure'], required: true },
  status: { type: Number, required: true },
  prev_hash: { type: String, required: true },
  hash: { type: String, required: true },
});
schema.plugin(basePlugin);
schema.index({ organization_id: 1, seq: 1 }, { unique: true });
schema.index({ organization_id: 1, at: 1 });

export type IdentityAuditRow = InferSchemaType<typeof schema>;
export const IdentityAudit = model('IdentityAudit', schema, 'identity_audit');
