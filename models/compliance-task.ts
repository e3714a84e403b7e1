import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { dayOf } from '../platform/dates';
import { defineList } from '../platform/lists/lists';

export const TASK_STATUSES = ['pending', 'in_progress', 'resolved'] as const;
export const TASK_PRIORITIES = ['high', 'medium', 'low'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

/**
 * A compliance issue found by a scan: one open task per contract and rule (`rule_id`),
 * so a re-scan does not duplicate what is still being worked on.
 */
const schema = new Schema(
  {
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
    /** The rule (services/compliance rules) or AI finding that raised the task. */
    rule_id: { type: String, required: true },
    scan_id: { type: Schema.Types.ObjectId, default: null },
    resolved_at: { type: Date, default: null },
    /** Set once `compliance.alert` was recorded for the task, so a retried scan step does not alert twice. */
    alerted_at: { type: Date, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin);
// The list index (platform/lists/list-index.ts) follows every write.
announceWrites(schema);
schema.index({ organization_id: 1, contract_id: 1, rule_id: 1, status: 1 });
schema.index({ organization_id: 1, status: 1, priority: 1 });
// The list (taskList): by due date, optionally by status, priority, regulation or contract.
schema.index({ organization_id: 1, due_date: 1, _id: 1 });
schema.index({ organization_id: 1, status: 1, due_date: 1, _id: 1 });
schema.index({ organization_id: 1, priority: 1, due_date: 1, _id: 1 });
schema.index({ organization_id: 1, regulation_type: 1, due_date: 1, _id: 1 });
schema.index({ organization_id: 1, contract_id: 1, due_date: 1, _id: 1 });

export type ComplianceTaskDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const ComplianceTask = model('ComplianceTask', schema, 'compliance_tasks');

export const taskList = defineList({
  name: 'compliance-tasks',
  model: ComplianceTask,
  filters: ['status', 'priority', 'regulation_type', 'contract_id'],
  sort: { field: 'due_date', order: 1 },
  row: taskView,
});

export const OPEN_STATUSES: readonly TaskStatus[] = ['pending', 'in_progress'];

/** The API record; `due_date` is a date (YYYY-MM-DD). */
export function taskView(t: ComplianceTaskDoc) {
  const { alerted_at: _alerted, ...rest } = t.toJSON() as Record<string, unknown>;
  return { ...rest, due_date: dayOf(t.due_date) };
}
