import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { AUDIT_CATEGORIES } from './identity-audit';

export const AUDIT_EXPORT_STATUSES = ['running', 'done', 'failed'] as const;
export const AUDIT_EXPORT_FORMATS = ['csv', 'jsonl'] as const;

/**
 * An export of an organization's identity audit log as a file, written by the workflow
 * `audit-export-<id>` (services/audit/export-audit.ts) under UPLOAD_DIR, read back by its download.
 */
const schema = new Schema(
  {
    ...tenantFields,
    status: { type: String, enum: AUDIT_EXPORT_STATUSES, default: 'running' },
    from: { type: Date, default: null },
    to: { type: Date, default: null },
    category: { type: String, enum: AUDIT_CATEGORIES, default: null },
    format: { type: String, enum: AUDIT_EXPORT_FORMATS, required: true },
    requested_by: { type: String, default: null },
    rows: { type: Number, default: null },
    bytes: { type: Number, default: null },
    /** Relative to UPLOAD_DIR. */
    file: { type: String, default: null },
    error: { type: String, default: null },
    workflow_id: { type: String, required: true },
    completed_at: { type: Date, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin);
schema.index({ organization_id: 1, created_at: -1 });

export type AuditExportRecord = HydratedDocument<InferSchemaType<typeof schema>>;
export const AuditExport = model('AuditExport', schema, 'audit_exports');
