import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * A contract's key terms (services/contracts/key-terms.shared.ts), one record per contract:
 * each key's term or null, what the last extraction read, the opt-out deadline derived from
 * them (the renewal reminders sent are the `contract.renewal_due` events).
 */
const schema = new Schema({
  ...tenantFields,
  contract_id: { type: Schema.Types.ObjectId, required: true, unique: true },
  terms: { type: Schema.Types.Mixed, required: true },
  extracted_at: { type: Date, default: null },
  source: { type: String, default: null },
  /** What the last extraction read from the text, members' corrections aside (a policy reads both). */
  extracted_terms: { type: Schema.Types.Mixed, default: null },
  /** The SHA-256 of the contract version whose text the last extraction read: terms of another are stale. */
  version_sha256: { type: String, default: null },
  /** Keys the last extraction did not get to within its time budget. */
  unread_keys: { type: [String], default: [] },
  /** The text of record was longer than the extraction read. */
  text_truncated: { type: Boolean, default: false },
  /** Why a key (or the opt-out deadline) is null though the text speaks of it: key → reason. */
  null_reasons: { type: Schema.Types.Mixed, default: {} },
  /** End date minus the non-renewal notice, for auto-renewing contracts (YYYY-MM-DD). */
  opt_out_deadline: { type: String, default: null },
});
schema.plugin(basePlugin);
schema.index({ organization_id: 1, opt_out_deadline: 1 });

export type ContractTermsRecord = InferSchemaType<typeof schema>;
export type ContractTermsDoc = HydratedDocument<ContractTermsRecord>;
export const ContractTerms = model('ContractTerms', schema, 'contract_terms');
