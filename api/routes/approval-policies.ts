/** The organization's approval policies (`/settings/approval-policies`): every member reads them, admins and owners write them. */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { policyBody } from '../../services/approvals/policy-rules';
import { createPolicy, deletePolicy, listPolicies, policyView, replacePolicy } from '../../services/approvals/approval-policies';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/approvals';

export function approvalPoliciesRouter(_s: Engines): Router {
  const router = Router();

  router.get('/', authorize('contracts:read'), async (req, res) => {
    const policies = await listPolicies(principalOf(req).organizationId);
    res.json({ policies: policies.map(policyView), total: policies.length });
  });

  router.post('/', authorize('settings:manage'), async (req, res) => {
    res.status(201).json(policyView(await createPolicy(principalOf(req), policyBody.parse(req.body))));
  });

  router.put('/:id', authorize('settings:manage'), async (req, res) => {
    res.json(policyView(await replacePolicy(principalOf(req), String(req.params.id), policyBody.parse(req.body))));
  });

  router.delete('/:id', authorize('settings:manage'), async (req, res) => {
    await deletePolicy(principalOf(req), String(req.params.id));
    res.status(204).end();
  });

  return router;
}
