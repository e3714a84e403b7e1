/**
 * Starting the approvals a contract's current version needs: the matching policies, copied
 * into a request bound to the version's SHA-256 and to the facts they were judged on, the first
 * step active, and the workflow `approval-<id>` that mails approvers, reminds and escalates.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf } from '../../platform/outbox/record-event';
import { startWorkflowOrDiscard } from '../../platform/temporal/client';
import { findOwned } from '../../platform/find-owned';
import { Contract } from '../../models/contract';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { approval, approvalWorkflowId } from '../../workflows/approval.shared';
import { describeApprovers } from './policy-rules';
import { requiredSteps, uncovered } from './required-approvals';
import { emitApprovalEvent } from './approval-events';
import { currentFacts, requestBasis } from './current-facts';

export type StartResult = { required: false } | { required: true; created: boolean; approval: ApprovalRecord };

export async function startApproval(s: Engines, p: Principal, contractId: unknown): Promise<StartResult> {
  const contract = await findOwned(Contract, p, contractId, 'Contract');
  const { version, read } = await currentFacts(s, p, contract);
  const steps = await requiredSteps(contract.organization_id, read.facts);
  if (!steps.length) return { required: false };
  // One request per version and facts at a time: asking again answers the open one, or a
  // finished one that still covers what the policies ask now.
  const existing = (
    await Approval.find({
      organization_id: contract.organization_id,
      contract_id: contract._id,
      version_sha256: version.sha256,
      facts_sha256: read.sha256,
      status: trusted({ $in: ['pending', 'approved', 'overridden'] }),
    }).sort({ created_at: -1 })
  ).find((a) => a.status === 'pending' || uncovered(a, steps).length === 0);
  if (existing) return { required: true, created: false, approval: existing };

  const now = new Date();
  const id = new Types.ObjectId();
  const requested = await Approval.create({
    _id: id,
    ...requestBasis(p, contract, { version, read }),
    groups: steps.map((g, i) => ({
      step: g.step,
      status: i === 0 ? 'active' : 'pending',
      activated_at: i === 0 ? now : null,
      requirements: g.requirements,
    })),
    workflow_id: approvalWorkflowId(id.toHexString()),
  });
  await startWorkflowOrDiscard(
    s,
    approval,
    {
      workflowId: approvalWorkflowId(requested.id),
      args: [{ organizationId: p.organizationId, approvalId: requested.id }],
      organizationId: p.organizationId,
      recordId: requested.id,
    },
    { discard: () => Approval.deleteOne({ _id: requested._id }), notKept: 'no approval was requested' },
  );
  await emitApprovalEvent(
    s,
    requested,
    'approval.requested',
    actorOf(p),
    `Approval requested for "${contract.title}" version ${version.number}: ${steps.length} step(s)`,
    {
      steps: steps.map((g) => ({
        step: g.step,
        approvers: g.requirements.map((r) => `${r.policy_name}: ${describeApprovers(r.approvers)}`),
      })),
    },
  );
  return { required: true, created: true, approval: requested };
}
