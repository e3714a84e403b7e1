import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const SCAN_STATUSES = ['running', 'completed', 'failed'] as const;
export const SCAN_SCOPES = ['all', 'active'] as const;
export type ScanScope = (typeof SCAN_SCOPES)[number];

/** One run of the compliance scan workflow (`compliance-scan-<id>`) and its progress. */
const schema = new Schema(
  {
    ...tenantFields,
    scope: { type: String, enum: SCAN_SCOPES, required: true },
    jurisdictions: { type: [String], required: true },
    /** When set, only these contracts (of the organization) are scanned. */
    contract_ids: { type: [Schema.Types.ObjectId], default: undefined },
    status: { type: String, enum: SCAN_STATUSES, default: 'running' },
    contracts_scanned: { type: Number, default: 0 },
    tasks_created: { type: Number, default: 0 },
    workflow_id: { type: String, default: null },
    error: { type: String, default: null },
    created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },
    started_at: { type: Date, default: () => new Date() },
    completed_at: { type: Date, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin);

export type ComplianceScanDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const ComplianceScan = model('ComplianceScan', schema, 'compliance_scans');

/** `GET /compliance/scans/:id` */
export function scanView(s: ComplianceScanDoc) {
  return {
    scan_id: s.id,
    status: s.status,
    scope: s.scope,
    jurisdictions: s.jurisdictions,
    contracts_scanned: s.contracts_scanned,
    tasks_created: s.tasks_created,
    workflow_id: s.workflow_id,
    started_at: s.started_at,
    completed_at: s.completed_at ?? null,
    ...(s.error ? { error: s.error } : {}),
  };
}
