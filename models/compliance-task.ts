import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, orgFilter, tenantFields } from './base';
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

export interface TaskCounts {
  total: number;
  pending: number;
  in_progress: number;
  resolved: number;
  /** Open (pending or in progress) with `due_date` before `now`. */
  overdue: number;
  by_priority: Record<TaskPriority, number>;
  by_regulation: Record<string, number>;
}

/**
 * An organization's task counts, computed by aggregation in the store (FerretDB 1.24 has
 * `$match`/`$group`/`$sum`/`$count` but no `$facet`, hence one grouping by
 * status x priority x regulation plus one overdue count). The compliance dashboard and
 * the analytics dashboard both read these.
 */
export async function taskCounts(organizationId: string, now = new Date()): Promise<TaskCounts> {
  const match = orgFilter(organizationId);
  const [groups, overdue] = await Promise.all([
    ComplianceTask.aggregate<{ _id: { status: TaskStatus; priority: TaskPriority; regulation: string }; n: number }>([
      { $match: match },
      { $group: { _id: { status: '$status', priority: '$priority', regulation: '$regulation_type' }, n: { $sum: 1 } } },
    ]),
    ComplianceTask.aggregate<{ n: number }>([
      { $match: { ...match, status: { $in: OPEN_STATUSES }, due_date: { $lt: now } } },
      { $count: 'n' },
    ]),
  ]);
  const counts: TaskCounts = {
    total: 0,
    pending: 0,
    in_progress: 0,
    resolved: 0,
    overdue: overdue[0]?.n ?? 0,
    by_priority: { high: 0, medium: 0, low: 0 },
    by_regulation: {},
  };
  for (const { _id, n } of groups) {
    counts.total += n;
    counts[_id.status] += n;
    counts.by_priority[_id.priority] += n;
    counts.by_regulation[_id.regulation] = (counts.by_regulation[_id.regulation] ?? 0) + n;
  }
  return counts;
}
