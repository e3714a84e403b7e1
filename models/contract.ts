import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { dayOf } from '../platform/dates';
import { defineList } from '../platform/lists/lists';

export const CONTRACT_STATUSES = ['draft', 'active', 'completed', 'expired'] as const;
export const CONTRACT_TYPES = ['nda', 'service_agreement', 'employment', 'consulting', 'lease'] as const;
export type ContractType = (typeof CONTRACT_TYPES)[number];
/** A contract's analysed risk and a vendor's assessed one (services/contracts/risk-level.ts maps scores to them). */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** A contract of an organization. `type` is free text in storage (imports may carry others); the API admits the five on create. */
const schema = new Schema(
  {
    ...tenantFields,
    title: { type: String, required: true, trim: true },
    type: { type: String, required: true },
    status: { type: String, enum: CONTRACT_STATUSES, default: 'draft' },
    counterparty: { type: String, required: true, trim: true },
    party_name: { type: String, default: null },
    content: { type: String, default: '' },
    vendor_id: { type: Schema.Types.ObjectId, default: null },
    /** The PDF of record: an uploaded PDF document of the organization that signature requests seal instead of rendering `content`. */
    document_id: { type: Schema.Types.ObjectId, default: null },
    value: { type: Number, default: null },
    currency: { type: String, default: 'USD' },
    start_date: { type: Date, default: null },
    end_date: { type: Date, default: null },
    signed_at: { type: Date, default: null },
    created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },
    risk_score: { type: Number, default: null },
    /** The last AI analysis (`POST /contracts/:id/analyze`). */
    analysis: {
      type: new Schema(
        {
          risk_level: { type: String, enum: RISK_LEVELS },
          key_risks: [{ _id: false, clause: String, risk: String, recommendation: String }],
          missing_clauses: [String],
          compliance_flags: [String],
        },
        { _id: false },
      ),
      default: null,
    },
    analyzed_at: { type: Date, default: null },

    // Declared here too (basePlugin sets the same) so the document type knows created_at/updated_at.
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin);
// The list index (platform/lists/list-index.ts) follows every write.
announceWrites(schema);
// The list (contractList): newest first, optionally by status or type; vendor pages; the expiry sweep.
schema.index({ organization_id: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, status: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, type: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, vendor_id: 1 });
schema.index({ status: 1, end_date: 1 });

export type ContractDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Contract = model('Contract', schema, 'contracts');

export const contractList = defineList({
  name: 'contracts',
  model: Contract,
  filters: ['status', 'type'],
  sort: { field: 'created_at', order: -1 },
  row: contractListItem,
  // The list's search reads title and counterparty (services/contracts/list-contracts.ts).
  searchText: (c) => `${c.title}\u0000${c.counterparty}`,
});

const day = (d: Date | null | undefined) => (d ? dayOf(d) : null);

/** The full contract record (create, get, update, draft); dates as YYYY-MM-DD. */
export function contractView(c: ContractDoc) {
  return { ...c.toJSON(), start_date: day(c.start_date), end_date: day(c.end_date) };
}

/** A list item (spec: id, title, type, status, counterparty, risk_score, created_at). */
export function contractListItem(c: ContractDoc) {
  return {
    id: c.id,
    title: c.title,
    type: c.type,
    status: c.status,
    counterparty: c.counterparty,
    risk_score: c.risk_score ?? null,
    vendor_id: c.vendor_id?.toHexString() ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** What contract events carry: enough for a receiver, never the content. */
export function contractEventData(c: ContractDoc) {
  return { id: c.id, title: c.title, type: c.type, status: c.status, counterparty: c.counterparty };
}
