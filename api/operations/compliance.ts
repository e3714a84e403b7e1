/** The OpenAPI description of the compliance operations (api/routes/compliance.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { SCAN_SCOPES } from '../../models/compliance-scan';
import { TASK_PRIORITIES, TASK_STATUSES } from '../../models/compliance-task';
import { taskListQuery } from '../../services/compliance/list-compliance-tasks';
import { COMPLIANCE_RULES } from '../../services/compliance/rules';
import { scanBody } from '../../services/compliance/start-compliance-scan';
import { updateTaskBody } from '../../services/compliance/update-compliance-task';
import { operation, pageOf, timestamp } from '../http/openapi';

/** scanView (models/compliance-scan.ts). */
const scanResponse = z.object({
  scan_id: idSchema,
  status: z.enum(['running', 'completed', 'failed']),
  scope: z.enum(SCAN_SCOPES),
  jurisdictions: z.array(z.string()),
  contracts_scanned: z.int(),
  tasks_created: z.int(),
  workflow_id: z.string(),
  started_at: timestamp,
  completed_at: timestamp.nullable(),
  error: z.string().optional(),
});
/** taskView (models/compliance-task.ts). */
const taskResponse = z.object({
  id: idSchema,
  title: z.string(),
  description: z.string(),
  priority: z.enum(TASK_PRIORITIES),
  status: z.enum(TASK_STATUSES),
  due_date: z.iso.date(),
  contract_id: idSchema,
  contract_title: z.string(),
  regulation_type: z.string(),
  jurisdiction: z.string(),
  rule_id: z.string(),
  scan_id: idSchema.nullable(),
  resolved_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
const counts = (keys: readonly string[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.int()])));
/** complianceDashboard (services/compliance/compliance-dashboard.ts). */
const dashboardResponse = z.object({
  summary: counts(['total_tasks', 'total', 'pending', 'in_progress', 'resolved', 'overdue']),
  by_priority: counts(TASK_PRIORITIES),
  by_regulation: z.record(z.string(), z.int()),
});

const jurisdictionList = [...new Set(COMPLIANCE_RULES.map((r) => `${r.jurisdiction} (${r.regulation_type})`))].join(', ');

const tag = 'Compliance';
operation({
  path: '/compliance/scan',
  method: 'post',
  tag,
  summary: 'Start a compliance scan',
  description: `Scans the contracts in scope (\`all\`, or \`active\` ones; \`contract_ids\` narrows it) against the rule set of the named jurisdictions and the AI's compliance flags. Rules: ${jurisdictionList}; GLOBAL (industry) rules run in every scan. Each issue becomes a task unless an open (pending or in_progress) task for the same contract and rule exists; each new task emits \`compliance.alert\`. Honours Idempotency-Key.`,
  body: scanBody,
  responses: {
    202: {
      description: 'The scan is running',
      schema: z.object({ scan_id: idSchema, workflow_id: z.string(), status: z.literal('running') }),
    },
  },
});
operation({
  path: '/compliance/scans/{id}',
  method: 'get',
  tag,
  summary: 'Progress and outcome of a scan',
  responses: { 200: { description: 'The scan', schema: scanResponse } },
});
operation({
  path: '/compliance/tasks',
  method: 'get',
  tag,
  summary: 'List compliance tasks, most urgent first',
  query: taskListQuery,
  responses: { 200: { description: 'A page of tasks', schema: pageOf('tasks', taskResponse) } },
});
operation({
  path: '/compliance/tasks/{id}',
  method: 'put',
  tag,
  summary: "Update a task's status, priority or due date",
  description: 'Members and above. Setting `resolved` stamps `resolved_at`; reopening clears it.',
  body: updateTaskBody,
  responses: {
    200: { description: 'The updated task', schema: taskResponse },
    409: 'Reopening while a newer open task for the same contract and rule exists',
  },
});
operation({
  path: '/compliance/dashboard',
  method: 'get',
  tag,
  summary: 'Task counts by status, priority and regulation',
  description: '`summary.total_tasks` (also as `total`) counts all tasks; `overdue` counts open tasks past their due date.',
  responses: { 200: { description: 'Counts', schema: dashboardResponse } },
});
