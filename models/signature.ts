import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { defineList } from '../platform/lists/lists';

export const SIGNATURE_STATUSES = ['pending', 'completed', 'declined', 'expired', 'cancelled'] as const;
export const SIGNER_STATUSES = ['pending', 'viewed', 'signed', 'declined'] as const;

const signerSchema = new Schema({
  name: { type: String, required: true },
  email: { type: String, required: true },
  order: { type: Number, required: true },
  status: { type: String, enum: SIGNER_STATUSES, default: 'pending' },
  /** SHA-256 of the secret in the signing link; the link itself is shown once. */
  token_hash: { type: String, required: true },
  /**
   * The link's token, sealed (platform/security/crypto.ts), kept only while the link can still act so the
   * service can mail it when it is this signer's turn and in reminders; cleared when the
   * signer signs or declines and when the request closes (changeWithAudit).
   */
  token_sealed: { type: String, default: null },
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
    delete ret.token_sealed;
    return ret;
  },
});

const auditSchema = new Schema(
  {
    seq: Number,
    type: String,
    at: String,
    signer_id: String,
    name: String,
    email: String,
    ip: String,
    user_agent: String,
    detail: String,
    /** On an approval's entry: canonical JSON of the facts it covered (services/contracts/contract-facts.ts). */
    facts: String,
    prev_hash: String,
    hash: String,
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
  /**
   * What the request signs, frozen when it was sent (services/signatures/pdf-of-record.ts):
   * the contract content, or, when the contract named a PDF of record, that file (a copy in
   * models/frozen-pdf.ts, `record_pdf_sha256`) and its text page by page for the signing page.
   * `document_hash` is the SHA-256 of the frozen bytes either way.
   */
  document: { type: String, default: '' },
  document_pages: { type: [String], default: [] },
  document_hash: { type: String, required: true },
  record_document_id: { type: Schema.Types.ObjectId, default: null },
  record_pdf_sha256: { type: String, default: null },
  audit_trail: { type: [auditSchema], default: [] },
  certificate: { type: Schema.Types.Mixed, default: null },
  requested_by: { type: Schema.Types.ObjectId, default: null },
  requested_by_name: { type: String, default: null },
  expires_at: { type: Date, required: true },
  completed_at: { type: Date, default: null },
  /** The sealed PDF (models/signed-pdf.ts): when it was sealed and its SHA-256, or why sealing failed (an operator can retry). */
  sealed_at: { type: Date, default: null },
  pdf_sha256: { type: String, default: null },
  sealing_error: { type: String, default: null },
  workflow_id: { type: String, default: null },
});
schema.plugin(basePlugin, { hidden: ['document', 'document_pages', 'audit_trail'] });
// The list index (platform/lists/list-index.ts) follows every write.
announceWrites(schema);
// The list (signatureList): newest first, optionally by status or contract.
schema.index({ organization_id: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, status: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, contract_id: 1, created_at: -1, _id: -1 });
schema.index({ 'signers.token_hash': 1 });

export type SignatureDoc = InferSchemaType<typeof schema>;
export const Signature = model('Signature', schema, 'signatures');

export const signatureList = defineList({
  name: 'signatures',
  model: Signature,
  filters: ['status', 'contract_id'],
  sort: { field: 'created_at', order: -1 },
  row: signatureView,
});

/** The API record: no audit trail, signed document or certificate. */
export function signatureView(sig: SignatureRecord) {
  const { certificate: _certificate, ...rest } = sig.toJSON() as Record<string, unknown>;
  return rest;
}
export type SignatureRecord = HydratedDocument<SignatureDoc>;

/** One entry of a request's hash-chained audit trail (services/signatures/signature-evidence.ts chains them). */
export interface AuditEntryInput {
  type:
    | 'requested'
    | 'viewed'
    | 'signed'
    | 'declined'
    | 'cancelled'
    | 'expired'
    | 'completed'
    | 'reminded'
    | 'approved'
    | 'approval_overridden';
  at: string;
  signer_id?: string | null;
  name?: string | null;
  email?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  detail?: string | null;
  facts?: string | null;
}

export interface AuditEntry extends AuditEntryInput {
  seq: number;
  prev_hash: string;
  hash: string;
}

/** The stored trail in the shape the evidence functions read. */
export const auditOf = (sig: SignatureRecord) => sig.toObject().audit_trail as AuditEntry[];
