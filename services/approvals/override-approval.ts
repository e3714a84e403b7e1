/**
 * An owner's override: the contract's current version may go out for signature without the
 * approvals its policies ask for, on the facts it has now. The reason is mandatory; it is kept on the request (which is
 * created if none was started), in the activity feed and, when the contract is sent, in the
 * signature request's audit trail and its sealed PDF's audit page.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf } from '../../platform/outbox/record-event';
import { forbidden } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { Contract } from '../../models/contract';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { approvalErrors } from './errors';
import { changeApprovals } from './approval-claim';
import { emitApprovalEvent, nudgeApprovalWorkflow } from './approval-events';
import { describeApprovers } from './policy-rules';
import { requiredSteps } from './required-approvals';
import { currentFacts, requestBasis } from './current-facts';

export async function overrideApproval(s: Engines, p: Principal, contractId: unknown, reason: string): Promise<ApprovalRecord> {
  const contract = await findOwned(Contract, p, contractId, 'Contract');
  if (p.role !== 'owner' || p.kind !== 'user') throw forbidden('Only an owner may override approvals');
  // Under the contract's approval claim: a decision or escalation landing at the same moment comes before or after it.
  const { written, open, version } = await changeApprovals(contract._id, async () => {
    const { version, read } = await currentFacts(s, p, contract);
    const open = await Approval.findOne({
      organization_id: contract.organization_id,
      contract_id: contract._id,
      version_sha256: version.sha256,
      facts_sha256: read.sha256,
      status: trusted({ $in: ['pending', 'approved', 'overridden'] }),
    }).sort({ created_at: -1 });
    if (open && open.status !== 'pending') throw approvalErrors.approval_closed(`Version ${version.number} is already ${open.status}`);
    const now = new Date();
    const steps = open ? [] : await requiredSteps(contract.organization_id, read.facts);
    const missing = open
      ? open.groups.filter((g) => g.status !== 'approved').map((g) => `step ${g.step}`)
      : steps.map((g) => `step ${g.step} (${g.requirements.map((r) => `${r.policy_name}: ${describeApprovers(r.approvers)}`).join('; ')})`);
    const override = { user_id: new Types.ObjectId(p.userId), name: p.name, reason, at: now, missing };
    const written = open
      ? await Approval.findOneAndUpdate(
          { _id: open._id, rev: open.rev, status: 'pending' },
          { $set: { status: 'overridden', override, completed_at: now }, $inc: { rev: 1 } },
          { returnDocument: 'after' },
        )
      : await Approval.create({
          ...requestBasis(p, contract, { version, read }),
          status: 'overridden',
          // The steps it lets out, never decided: the gate reads what an override covers from them.
          groups: steps.map((g) => ({ step: g.step, status: 'pending', requirements: g.requirements })),
          override,
          completed_at: now,
        });
    if (!written) throw approvalErrors.approval_busy('A decision landed at the same moment; try again');
    return { written, open, version };
  });
  await emitApprovalEvent(
    s,
    written,
    'approval.completed',
    actorOf(p),
    `${p.name} overrode the approvals of "${contract.title}" version ${version.number}: ${reason}`,
    { override_reason: reason },
  );
  if (open) await nudgeApprovalWorkflow(s, written.id);
  return written;
}
