/**
 * Compliance: start a scan (workflow `compliance-scan-<scanId>`) and follow its progress,
 * list and update the tasks it raises, and the dashboard of task counts.
 */
import { Router } from 'express';
import { trusted, Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { pageQuery } from '../../platform/lists/pagination';
import { listPage } from '../../platform/lists/list-index';
import { JURISDICTIONS, COMPLIANCE_RULES } from '../../services/compliance/rules';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { ComplianceScan, SCAN_SCOPES, scanView } from '../../models/compliance-scan';
import {
  ComplianceTask,
  OPEN_STATUSES,
  taskList,
  TASK_PRIORITIES,
  TASK_STATUSES,
  taskCounts,
  taskView,
} from '../../models/compliance-task';
import { startWorkflow } from '../../platform/temporal/client';
import { complianceScan } from '../../workflows/compliance-scan.shared';
import { operation, pageOf, timestamp } from '../http/openapi';
import { idSchema, objectId } from '../../platform/input';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { badRequest, conflict, notFound, unavailable } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';

const MAX_SCAN_CONTRACTS = 500;
const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

const scanBody = z.object({
  scope: z.enum(SCAN_SCOPES, oneOf(SCAN_SCOPES)).default('all'),
  jurisdictions: z
    .array(
      z.string().refine((j) => JURISDICTIONS.includes(j), oneOf(JURISDICTIONS)),
      'must be an array of jurisdiction codes',
    )
    .min(1, 'must name at least one jurisdiction')
    .max(JURISDICTIONS.length * 2, 'has too many entries')
    .default([...JURISDICTIONS]),
  contract_ids: z
    .array(objectId('must be contract ids'), 'must be an array of contract ids')
    .min(1, 'must not be empty when given')
    .max(MAX_SCAN_CONTRACTS, `must have at most ${MAX_SCAN_CONTRACTS} ids`)
    .optional(),
});

const listQuery = pageQuery.extend({
  status: z.enum(TASK_STATUSES, oneOf(TASK_STATUSES)).optional(),
  priority: z.enum(TASK_PRIORITIES, oneOf(TASK_PRIORITIES)).optional(),
  regulation_type: z.string().trim().min(1).max(100).optional(),
  contract_id: objectId('must be a contract id').optional(),
});

const updateBody = z.object({
  status: z.enum(TASK_STATUSES, oneOf(TASK_STATUSES)).optional(),
  priority: z.enum(TASK_PRIORITIES, oneOf(TASK_PRIORITIES)).optional(),
  due_date: z.iso.date('must be a date (YYYY-MM-DD)').optional(),
});

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
const dashboardResponse = z.object({
  summary: counts(['total_tasks', 'total', 'pending', 'in_progress', 'resolved', 'overdue']),
  by_priority: counts(TASK_PRIORITIES),
  by_regulation: z.record(z.string(), z.int()),
});

const jurisdictionList = [...new Set(COMPLIANCE_RULES.map((r) => `${r.jurisdiction} (${r.regulation_type})`))].join(', ');

operation({
  path: '/compliance/scan',
  method: 'post',
  tag: 'Compliance',
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
  tag: 'Compliance',
  summary: 'Progress and outcome of a scan',
  responses: { 200: { description: 'The scan', schema: scanResponse } },
});
operation({
  path: '/compliance/tasks',
  method: 'get',
  tag: 'Compliance',
  summary: 'List compliance tasks, most urgent first',
  query: listQuery,
  responses: { 200: { description: 'A page of tasks', schema: pageOf('tasks', taskResponse) } },
});
operation({
  path: '/compliance/tasks/{id}',
  method: 'put',
  tag: 'Compliance',
  summary: "Update a task's status, priority or due date",
  description: 'Members and above. Setting `resolved` stamps `resolved_at`; reopening clears it.',
  body: updateBody,
  responses: {
    200: { description: 'The updated task', schema: taskResponse },
    409: 'Reopening while a newer open task for the same contract and rule exists',
  },
});
operation({
  path: '/compliance/dashboard',
  method: 'get',
  tag: 'Compliance',
  summary: 'Task counts by status, priority and regulation',
  description: '`summary.total_tasks` (also as `total`) counts all tasks; `overdue` counts open tasks past their due date.',
  responses: { 200: { description: 'Counts', schema: dashboardResponse } },
});

export function complianceRouter(s: Services): Router {
  const router = Router();

  router.post('/scan', authorize('compliance:scan'), idempotent(s.logger), async (req, res) => {
    const p = principalOf(req);
    const body = scanBody.parse(req.body);
    const contractIds = body.contract_ids && [...new Set(body.contract_ids)].map((id) => new Types.ObjectId(id));
    if (contractIds) {
      const found = await Contract.countDocuments({ ...orgFilter(p.organizationId), _id: trusted({ $in: contractIds }) });
      if (found !== contractIds.length) throw notFound('Contract');
    }
    const scan = await ComplianceScan.create({
      organization_id: new Types.ObjectId(p.organizationId),
      scope: body.scope,
      jurisdictions: [...new Set(body.jurisdictions)],
      contract_ids: contractIds,
      created_by: new Types.ObjectId(p.userId),
    });
    scan.workflow_id = `compliance-scan-${scan.id}`;
    await scan.save();
    try {
      await startWorkflow(s, complianceScan, {
        workflowId: scan.workflow_id,
        args: [{ scanId: scan.id }],
        organizationId: p.organizationId,
        recordId: scan.id,
      });
    } catch (err) {
      await ComplianceScan.deleteOne({ _id: scan._id });
      s.logger.error({ err, scanId: scan.id }, 'could not start the compliance scan');
      throw unavailable('The workflow engine is unavailable; try again shortly');
    }
    res.status(202).json({ scan_id: scan.id, workflow_id: scan.workflow_id, status: 'running' });
  });

  router.get('/scans/:id', authorize('compliance:read'), async (req, res) => {
    const scan = await findOwned(ComplianceScan, principalOf(req), req.params.id, 'Compliance scan');
    res.json(scanView(scan));
  });

  router.get('/tasks', authorize('compliance:read'), async (req, res) => {
    const p = principalOf(req);
    const q = listQuery.parse(req.query);
    const equal = {
      ...(q.status ? { status: q.status } : {}),
      ...(q.priority ? { priority: q.priority } : {}),
      ...(q.regulation_type ? { regulation_type: q.regulation_type } : {}),
      ...(q.contract_id ? { contract_id: new Types.ObjectId(q.contract_id) } : {}),
    };
    const { items, total } = await listPage(s, taskList, p.organizationId, { equal }, q);
    res.json({ tasks: items, total, page: q.page, page_size: q.page_size });
  });

  router.put('/tasks/:id', authorize('compliance:write'), async (req, res) => {
    const body = updateBody.parse(req.body);
    const task = await findOwned(ComplianceTask, principalOf(req), req.params.id, 'Compliance task');
    if (body.status && body.status !== task.status) {
      // Reopening must not make a second open task for the same contract and rule.
      if (
        task.status === 'resolved' &&
        (await ComplianceTask.exists({
          organization_id: task.organization_id,
          contract_id: task.contract_id,
          rule_id: task.rule_id,
          _id: trusted({ $ne: task._id }),
          status: trusted({ $in: OPEN_STATUSES }),
        }))
      )
        throw conflict('An open task for this contract and rule already exists');
      task.resolved_at = body.status === 'resolved' ? new Date() : null;
      task.status = body.status;
    }
    if (body.priority) task.priority = body.priority;
    if (body.due_date) {
      const due = new Date(`${body.due_date}T00:00:00Z`);
      if (Number.isNaN(due.getTime())) throw badRequest('due_date: must be a date (YYYY-MM-DD)');
      task.due_date = due;
    }
    await task.save();
    res.json(taskView(task));
  });

  router.get('/dashboard', authorize('compliance:read'), async (req, res) => {
    const c = await taskCounts(principalOf(req).organizationId);
    res.json({
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
    });
  });

  return router;
}
