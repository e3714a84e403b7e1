import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const SIGNATURE_STATUSES = ['pending', 'completed', 'declined', 'expired', 'cancelled'] as const;
export const SIGNER_STATUSES = ['pending', 'viewed', 'signed', 'declined'] as const;

const signerSchema = new Schema({
  name: { type: String, required: true },
  email: { type: String, required: true },
  order: { type: Number, required: true },
  status: { type: String, enum: SIGNER_STATUSES, default: 'pending' },
  /** SHA-256 of the secret in the signing link; the link itself is shown once. */
  token_hash: { type: String, required: true },
  viewed_at: { type: Date, default: null },
  signed_at: { type: Date, default: null },
  declined_at: { type: Date, default: null },
  decline_reason: { type: String, default: null },
  signature_text: { type: String, default: null },
  ip: { type: String, default: null },
  user_agent: { type: String, default: null },
});

signerSchema.set('toJSON', {
  transform: (_doc, ret: Record<string, unknown>) => {
    ret.id = String(ret._id);
    delete ret._id;
    delete ret.token_hash;
    return ret;
  },
});

const auditSchema = new Schema(
  {
    seq: Number, type: String, at: String, signer_id: String, name: String, email: String,
    ip: String, user_agent: String, detail: String, prev_hash: String, hash: String,
  },
  { _id: false },
);

/** A signature request: signers, the frozen document and its evidence. */
const schema = new Schema({
  ...tenantFields,
  contract_id: { type: Schema.Types.ObjectId, required: true },
  contract_title: { type: String, required: true },
  status: { type: String, enum: SIGNATURE_STATUSES, default: 'pending' },
  ordered: { type: Boolean, default: false },
  message: { type: String, default: null },
  signers: { type: [signerSchema], required: true },
  /** The contract content as sent, and its SHA-256. */
  document: { type: String, required: true },
  document_hash: { type: String, required: true },
  audit_trail: { type: [auditSchema], default: [] },
  certificate: { type: Schema.Types.Mixed, default: null },
  requested_by: { type: Schema.Types.ObjectId, default: null },
  requested_by_name: { type: String, default: null },
  expires_at: { type: Date, required: true },
  completed_at: { type: Date, default: null },
  workflow_id: { type: String, default: null },
});
schema.plugin(basePlugin, { hidden: ['document', 'audit_trail'] });
schema.index({ organization_id: 1, status: 1, created_at: -1 });
schema.index({ organization_id: 1, contract_id: 1 });
schema.index({ 'signers.token_hash': 1 });

export type SignatureDoc = InferSchemaType<typeof schema>;
export const Signature = model('Signature', schema, 'signatures');
