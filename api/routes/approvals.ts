/**
 * Approvals before signing: start what the policies require for a contract's current version
 * and an owner's override (mounted on /contracts), the approver's inbox and the decisions
 * (mounted on /approvals). Use cases in services/approvals/.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { startApproval } from '../../services/approvals/start-approval';
import { decideApproval } from '../../services/approvals/decide-approval';
import { overrideApproval } from '../../services/approvals/override-approval';
import { approvalListQuery, getApproval, listApprovals } from '../../services/approvals/list-approvals';
import { approvalView } from '../../services/approvals/approval-view';
import { authorize, principalOf } from '../http/middleware/auth';
import { sendPage } from '../http/pages';
import { decisionBody, overrideBody } from '../operations/approvals';

export function contractApprovalsRouter(s: Engines): Router {
  const router = Router();

  router.post('/:id/approvals', authorize('contracts:write'), async (req, res) => {
    const started = await startApproval(s, principalOf(req), req.params.id);
    if (!started.required) {
      res.json({ required: false, detail: 'No approval required: no policy of the organization applies to this version' });
      return;
    }
    res.status(started.created ? 201 : 200).json({ required: true, approval: approvalView(started.approval) });
  });

  router.post('/:id/approvals/override', authorize('contracts:write'), async (req, res) => {
    const { reason } = overrideBody.parse(req.body);
    res.json(approvalView(await overrideApproval(s, principalOf(req), req.params.id, reason)));
  });

  return router;
}

export function approvalsRouter(s: Engines): Router {
  const router = Router();

  router.get('/', authorize('contracts:read'), async (req, res) => {
    const q = approvalListQuery.parse(req.query);
    const { items, total } = await listApprovals(principalOf(req), q);
    sendPage(res, 'approvals', q, { items: items.map(approvalView), total });
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    res.json(approvalView(await getApproval(principalOf(req), req.params.id)));
  });

  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    router.post(`/:id/${verb}`, authorize('contracts:write'), async (req, res) => {
      const body = decisionBody.parse(req.body ?? {});
      res.json(approvalView(await decideApproval(s, principalOf(req), String(req.params.id), decision, body)));
    });
  }

  return router;
}
