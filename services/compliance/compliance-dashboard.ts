/** The compliance dashboard: an organization's task counts by status, priority and regulation. */
import { orgFilter } from '../../models/base';
import { ComplianceTask, OPEN_STATUSES, type TaskPriority, type TaskStatus } from '../../models/compliance-task';

interface TaskCounts {
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
 * Computed by aggregation in the store (FerretDB 1.24 has `$match`/`$group`/`$sum`/`$count`
 * but no `$facet`, hence one grouping by status x priority x regulation plus one overdue count).
 */
async function taskCounts(organizationId: string, now: Date): Promise<TaskCounts> {
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

/** `summary.total_tasks` (also as `total`) counts all tasks; `overdue` counts open tasks past their due date. */
export async function complianceDashboard(organizationId: string, now = new Date()) {
  const c = await taskCounts(organizationId, now);
  return {
    summary: {
      total_tasks: c.total,
      total: c.total,
      pending: c.pending,
      in_progress: c.in_progress,
      resolved: c.resolved,
      overdue: c.overdue,
    },
    by_priority: c.by_priority,
    by_regulation: c.by_regulation,
  };
}
