/**
 * Approvals before signing: start what the policies require for a contract's current version,
 * an owner's override, the approver's inbox, and the decisions. Use cases in services/approvals/.
 */
import { Router, type Request } from 'express';
import type { Engines } from '../../platform/engines';
import { findOwned } from '../../platform/find-owned';
import { Contract } from '../../models/contract';
import { Approval } from '../../models/approval';
import { startApproval } from '../../services/approvals/start-approval';
import { decideApproval } from '../../services/approvals/decide-approval';
import { overrideApproval } from '../../services/approvals/override-approval';
import { approvalListQuery, listApprovals } from '../../services/approvals/list-approvals';
import { approvalView } from '../../services/approvals/approval-view';
import { authorize, principalOf } from '../http/middleware/auth';
import { decisionBody, overrideBody } from '../operations/approvals';

export function approvalsRouter(s: Engines): Router {
  const router = Router();
  const contract = (req: Request) => findOwned(Contract, principalOf(req), req.params.id, 'Contract');

  router.post('/contracts/:id/approvals', authorize('contracts:write'), async (req, res) => {
    const started = await startApproval(s, principalOf(req), await contract(req));
    if (!started.required) {
      res.json({ required: false, detail: 'No approval required: no policy of the organization applies to this version' });
      return;
    }
    res.status(started.created ? 201 : 200).json({ required: true, approval: approvalView(started.approval) });
  });

  router.post('/contracts/:id/approvals/override', authorize('contracts:write'), async (req, res) => {
    const { reason } = overrideBody.parse(req.body);
    res.json(approvalView(await overrideApproval(s, principalOf(req), await contract(req), reason)));
  });

  router.get('/approvals', authorize('contracts:read'), async (req, res) => {
    const q = approvalListQuery.parse(req.query);
    const { items, total } = await listApprovals(principalOf(req), q);
    res.json({ approvals: items.map(approvalView), total, page: q.page, page_size: q.page_size });
  });

  router.get('/approvals/:id', authorize('contracts:read'), async (req, res) => {
    res.json(approvalView(await findOwned(Approval, principalOf(req), req.params.id, 'Approval')));
  });

  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    router.post(`/approvals/:id/${verb}`, authorize('contracts:write'), async (req, res) => {
      const body = decisionBody.parse(req.body ?? {});
      res.json(approvalView(await decideApproval(s, principalOf(req), String(req.params.id), decision, body)));
    });
  }

  return router;
}
