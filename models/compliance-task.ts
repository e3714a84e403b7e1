import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const TASK_STATUSES = ['pending', 'in_progress', 'resolved'] as const;
export const TASK_PRIORITIES = ['high', 'medium', 'low'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

/**
 * A compliance issue found by a scan: one open task per contract and rule (`rule_id`),
 * so a re-scan does not duplicate what is still being worked on.
 */
const schema = new Schema({
  ...tenantFields,
  title: { type: String, required: true },
  description: { type: String, required: true },
  priority: { type: String, enum: TASK_PRIORITIES, required: true },
  status: { type: String, enum: TASK_STATUSES, default: 'pending' },
  due_date: { type: Date, required: true },
  contract_id: { type: Schema.Types.ObjectId, required: true },
  contract_title: { type: String, required: true },
  regulation_type: { type: String, required: true },
  jurisdiction: { type: String, required: true },
  /** The rule (lib/compliance rules) or AI finding that raised the task. */
  rule_id: { type: String, required: true },
  scan_id: { type: Schema.Types.ObjectId, default: null },
  resolved_at: { type: Date, default: null },
}, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const });
schema.plugin(basePlugin);
schema.index({ organization_id: 1, contract_id: 1, rule_id: 1, status: 1 });
schema.index({ organization_id: 1, status: 1, priority: 1 });

export type ComplianceTaskDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const ComplianceTask = model('ComplianceTask', schema, 'compliance_tasks');
