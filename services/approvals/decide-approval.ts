/**
 * An approver's decision: checked against the request as read (its step active, the approver
 * eligible and not yet decided, the version hash current), then written, under the claim on
 * the contract's approvals (./approval-claim.ts): two decisions landing together take turns,
 * and the second is checked against what the first wrote. The write is still conditional on
 * the request's revision, which an edit's supersession also moves. Needs no worker: the
 * workflow only hears about it (mail to the next step, reminders).
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf } from '../../platform/outbox/record-event';
import { findOwned } from '../../platform/find-owned';
import { Types } from 'mongoose';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { currentVersion } from '../contracts/contract-versions';
import { approvalErrors } from './errors';
import { emitApprovalEvent, nudgeApprovalWorkflow } from './approval-events';
import { completeStep, requirementMet, requirementsFor, userOf } from './approval-view';
import { changeApprovals } from './approval-claim';

export interface DecisionInput {
  comment?: string;
  version_sha256?: string;
}

const ATTEMPTS = 5;

/** Marks a pending request of an older version superseded (an edit raced the decision). */
async function supersede(a: ApprovalRecord): Promise<never> {
  await Approval.updateOne(
    { _id: a._id, status: 'pending' },
    { $set: { status: 'superseded', completed_at: new Date() }, $inc: { rev: 1 } },
  );
  throw approvalErrors.approval_superseded(`The contract changed after version ${a.version_number}; this request is superseded`);
}

/** The checks of one decision against the request as read; returns the step's index and the requirements it counts for. */
async function check(p: Principal, a: ApprovalRecord, input: DecisionInput): Promise<{ gi: number; reqs: number[] }> {
  if (p.kind !== 'user')
    throw approvalErrors.approval_needs_person('Approvals are decided by people: sign in as a member to approve or reject');
  if (a.status === 'superseded')
    throw approvalErrors.approval_superseded(`The contract changed after version ${a.version_number}; this request is superseded`);
  if (a.status !== 'pending') throw approvalErrors.approval_closed(`The request is already ${a.status}`);
  if (input.version_sha256 !== undefined && input.version_sha256 !== a.version_sha256)
    throw approvalErrors.approval_stale_version(`version_sha256: the request is for version ${a.version_number} (${a.version_sha256})`);
  const current = await currentVersion({ _id: a.contract_id });
  if (current && current.sha256 !== a.version_sha256) await supersede(a);
  const user = userOf(p);
  const gi = a.groups.findIndex((g) => g.status === 'active');
  const group = a.groups[gi];
  const reqs = group ? requirementsFor(a, group, user) : [];
  if (!group || !reqs.length) {
    if (group && requirementsFor(a, group, user, false).length)
      throw approvalErrors.approval_self_approval(
        'You requested this approval or wrote the version under review: another approver decides (the policy does not allow self-approval)',
      );
    const later = a.groups.find((g) => g.status === 'pending' && requirementsFor(a, g, user).length);
    if (later) throw approvalErrors.approval_out_of_order(`Step ${later.step} is not active yet: step ${group?.step ?? '?'} decides first`);
    throw approvalErrors.approval_not_approver('You are not an approver of this request');
  }
  if (group.decisions.some((d) => d.user_id.toHexString() === p.userId))
    throw approvalErrors.approval_already_decided(`You have already decided on step ${group.step}`);
  return { gi, reqs };
}

async function decideOnce(
  s: Engines,
  p: Principal,
  approvalId: string,
  decision: 'approved' | 'rejected',
  input: DecisionInput,
): Promise<ApprovalRecord> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const a = await findOwned(Approval, p, approvalId, 'Approval');
    const { gi, reqs } = await check(p, a, input);
    const now = new Date();
    const group = a.groups[gi]!;
    group.decisions.push({
      user_id: new Types.ObjectId(p.userId),
      name: p.name,
      decision,
      comment: input.comment ?? null,
      at: now,
      requirements: reqs,
    });
    let status: ApprovalRecord['status'] = 'pending';
    if (decision === 'rejected') {
      group.status = 'rejected';
      group.completed_at = now;
      status = 'rejected';
    } else if (group.requirements.every((_, i) => requirementMet(group, i))) status = completeStep(a, gi, now);
    const written = await Approval.findOneAndUpdate(
      { _id: a._id, organization_id: a.organization_id, rev: a.rev, status: 'pending', version_sha256: a.version_sha256 },
      { $set: { groups: a.groups.map((g) => g.toObject()), status, completed_at: status === 'pending' ? null : now }, $inc: { rev: 1 } },
      { returnDocument: 'after' },
    );
    if (!written) continue;
    const actor = actorOf(p);
    const extra = { step: group.step, approver: { id: p.userId, name: p.name }, comment: input.comment ?? null };
    if (decision === 'rejected')
      await emitApprovalEvent(
        s,
        written,
        'approval.rejected',
        actor,
        `${p.name} rejected step ${group.step} of "${a.contract_title}"`,
        extra,
      );
    else
      await emitApprovalEvent(
        s,
        written,
        'approval.approved',
        actor,
        `${p.name} approved step ${group.step} of "${a.contract_title}"`,
        extra,
      );
    if (status !== 'pending')
      await emitApprovalEvent(
        s,
        written,
        'approval.completed',
        actor,
        `Approval of "${a.contract_title}" version ${a.version_number}: ${status}`,
        {
          override_reason: null,
        },
      );
    return written;
  }
  throw approvalErrors.approval_busy('Other decisions landed at the same moment; try again');
}

export async function decideApproval(
  s: Engines,
  p: Principal,
  approvalId: string,
  decision: 'approved' | 'rejected',
  input: DecisionInput,
): Promise<ApprovalRecord> {
  const { contract_id } = await findOwned(Approval, p, approvalId, 'Approval');
  const written = await changeApprovals(contract_id, () => decideOnce(s, p, approvalId, decision, input));
  await nudgeApprovalWorkflow(s, written.id);
  return written;
}
