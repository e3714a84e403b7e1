/**
 * Compliance: start a scan (workflow `compliance-scan-<scanId>`) and follow its progress,
 * list and update the tasks it raises, and the dashboard of task counts (services/compliance/).
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { scanView } from '../../models/compliance-scan';
import { taskView } from '../../models/compliance-task';
import { complianceDashboard } from '../../services/compliance/compliance-dashboard';
import { getComplianceScan, listComplianceTasks, taskListQuery } from '../../services/compliance/list-compliance-tasks';
import { scanBody, startComplianceScan } from '../../services/compliance/start-compliance-scan';
import { updateComplianceTask, updateTaskBody } from '../../services/compliance/update-compliance-task';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { sendPage } from '../http/pages';
import '../operations/compliance';

export function complianceRouter(s: Engines): Router {
  const router = Router();

  router.post('/scan', authorize('compliance:scan'), idempotent(s.logger), async (req, res) => {
    const scan = await startComplianceScan(s, principalOf(req), scanBody.parse(req.body));
    res.status(202).json({ scan_id: scan.id, workflow_id: scan.workflow_id, status: 'running' });
  });

  router.get('/scans/:id', authorize('compliance:read'), async (req, res) => {
    res.json(scanView(await getComplianceScan(principalOf(req), req.params.id)));
  });

  router.get('/tasks', authorize('compliance:read'), async (req, res) => {
    const q = taskListQuery.parse(req.query);
    sendPage(res, 'tasks', q, await listComplianceTasks(s, principalOf(req), q));
  });

  router.put('/tasks/:id', authorize('compliance:write'), async (req, res) => {
    const body = updateTaskBody.parse(req.body);
    res.json(taskView(await updateComplianceTask(s, principalOf(req), req.params.id, body)));
  });

  router.get('/dashboard', authorize('compliance:read'), async (req, res) => {
    res.json(await complianceDashboard(principalOf(req).organizationId));
  });

  return router;
}
