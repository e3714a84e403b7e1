import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { RISK_LEVELS } from './contract';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { defineList } from '../platform/lists/lists';

export const VENDOR_STATUSES = ['active', 'inactive', 'under_review', 'blocked'] as const;

/** A vendor of an organization. `risk_score`/`risk_level` stay null until the first assessment. */
const schema = new Schema(
  {
    ...tenantFields,
    name: { type: String, required: true, trim: true },
    contact_name: { type: String, default: null },
    contact_email: { type: String, default: null },
    contact_phone: { type: String, default: null },
    category: { type: String, default: null },
    website: { type: String, default: null },
    notes: { type: String, default: null },
    status: { type: String, enum: VENDOR_STATUSES, default: 'active' },
    risk_score: { type: Number, default: null },
    risk_level: { type: String, enum: [...RISK_LEVELS, null], default: null },
    assessment: {
      type: new Schema(
        {
          financial_stability: String,
          data_handling: String,
          contract_coverage: String,
          recommendations: [String],
        },
        { _id: false },
      ),
      default: null,
    },
    assessed_at: { type: Date, default: null },
    created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },

    // Declared here too (basePlugin sets the same) so the document type knows created_at/updated_at.
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin);
// The list index (platform/lists/list-index.ts) follows every write.
announceWrites(schema);
// The list (vendorList): newest first, optionally by status or risk level.
schema.index({ organization_id: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, status: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, risk_level: 1, created_at: -1, _id: -1 });

export type VendorDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Vendor = model('Vendor', schema, 'vendors');

export const vendorList = defineList({
  name: 'vendors',
  model: Vendor,
  filters: ['status', 'risk_level'],
  sort: { field: 'created_at', order: -1 },
  row: vendorListItem,
});

/** A list item (spec: id, name, contact_email, status, risk_level, risk_score, category, created_at). */
export function vendorListItem(v: VendorDoc) {
  return {
    id: v.id,
    name: v.name,
    contact_email: v.contact_email ?? null,
    status: v.status,
    risk_level: v.risk_level ?? null,
    risk_score: v.risk_score ?? null,
    category: v.category ?? null,
    created_at: v.created_at,
  };
}

/** What vendor events carry: the list item without contact details and time. */
export function vendorEventData(v: VendorDoc) {
  const { id, name, category, status, risk_level, risk_score } = vendorListItem(v);
  return { id, name, category, status, risk_level, risk_score };
}
