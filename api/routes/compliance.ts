/**
 * Compliance: start a scan (workflow `compliance-scan-<scanId>`) and follow its progress,
 * list and update the tasks it raises, and the dashboard of task counts (services/compliance/).
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { findOwned } from '../../platform/find-owned';
import { listPage } from '../../platform/lists/list-index';
import { ComplianceScan, scanView } from '../../models/compliance-scan';
import { ComplianceTask, taskList, taskView } from '../../models/compliance-task';
import { complianceDashboard } from '../../services/compliance/compliance-dashboard';
import { taskListFilter, taskListQuery } from '../../services/compliance/list-compliance-tasks';
import { scanBody, startComplianceScan } from '../../services/compliance/start-compliance-scan';
import { updateComplianceTask, updateTaskBody } from '../../services/compliance/update-compliance-task';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import '../operations/compliance';

export function complianceRouter(s: Engines): Router {
  const router = Router();

  router.post('/scan', authorize('compliance:scan'), idempotent(s.logger), async (req, res) => {
    const scan = await startComplianceScan(s, principalOf(req), scanBody.parse(req.body));
    res.status(202).json({ scan_id: scan.id, workflow_id: scan.workflow_id, status: 'running' });
  });

  router.get('/scans/:id', authorize('compliance:read'), async (req, res) => {
    res.json(scanView(await findOwned(ComplianceScan, principalOf(req), req.params.id, 'Compliance scan')));
  });

  router.get('/tasks', authorize('compliance:read'), async (req, res) => {
    const q = taskListQuery.parse(req.query);
    const { items, total } = await listPage(s, taskList, principalOf(req).organizationId, taskListFilter(q), q);
    res.json({ tasks: items, total, page: q.page, page_size: q.page_size });
  });

  router.put('/tasks/:id', authorize('compliance:write'), async (req, res) => {
    const body = updateTaskBody.parse(req.body);
    const task = await findOwned(ComplianceTask, principalOf(req), req.params.id, 'Compliance task');
    res.json(taskView(await updateComplianceTask(s, task, body)));
  });

  router.get('/dashboard', authorize('compliance:read'), async (req, res) => {
    res.json(await complianceDashboard(principalOf(req).organizationId));
  });

  return router;
}
