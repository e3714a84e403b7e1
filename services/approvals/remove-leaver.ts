/**
 * A member left (workflows/member-deprovision.ts): on every pending request that names them as
 * an approver, their entry in each open step becomes `removed`, and the active step is judged
 * again without them. It completes when those still there already satisfy it (as a decision
 * would), and escalates to its manager role (./approval-reminders.ts) when none of its named
 * approvers is left to decide. Each request changes under the contract's approval claim;
 * run twice, nothing more changes (a step already holding the leaver's entry is skipped).
 */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Actor } from '../../platform/outbox/record-event';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { User } from '../../models/user';
import type { DeprovisionStep } from '../../workflows/member-deprovision.shared';
import { changeApprovals } from './approval-claim';
import { emitApprovalEvent, nudgeApprovalWorkflow } from './approval-events';
import { escalateApproval } from './approval-reminders';
import { completeStep, requirementMet } from './approval-view';
import type { Approvers } from './policy-rules';

type Group = ApprovalRecord['groups'][number];

interface Leaver {
  organizationId: string;
  userId: string;
  name: string;
}

const SYSTEM: Actor = { type: 'system', id: null, name: 'member deprovisioning' };

/** The requirements of the step that name the member. */
const naming = (g: { requirements: Array<{ approvers: unknown }> }, userId: string) =>
  g.requirements.flatMap((r, i) => {
    const ap = r.approvers as Approvers;
    return ap.kind !== 'role' && ap.user_ids.includes(userId) ? [i] : [];
  });

/** A requirement no named approver is left to decide (all decided or gone) and still unmet: only escalation can move it. */
const orphaned = (g: Group, i: number) => {
  const ap = g.requirements[i]!.approvers as Approvers;
  const decided = new Set(g.decisions.map((d) => d.user_id.toHexString()));
  return ap.kind !== 'role' && !requirementMet(g, i) && ap.user_ids.every((id) => decided.has(id));
};

type Outcome = { removed: number; escalate: number | null; written: ApprovalRecord | null };

async function removeFrom(s: Engines, leaver: Leaver, approvalId: Types.ObjectId): Promise<Outcome> {
  const a = await Approval.findOne({ _id: approvalId, organization_id: leaver.organizationId });
  const none: Outcome = { removed: 0, escalate: null, written: null };
  if (a?.status !== 'pending') return none;
  const now = new Date();
  let removed = 0;
  for (const g of a.groups) {
    if (g.status !== 'pending' && g.status !== 'active') continue;
    const reqs = naming(g, leaver.userId);
    if (!reqs.length || g.decisions.some((d) => d.user_id.toHexString() === leaver.userId)) continue;
    g.decisions.push({ user_id: new Types.ObjectId(leaver.userId), name: leaver.name, decision: 'removed', at: now, requirements: reqs });
    removed++;
  }
  const gi = a.groups.findIndex((g) => g.status === 'active');
  const active = a.groups[gi];
  const needsEscalation = !!active && !active.escalated_at && active.requirements.some((_, i) => orphaned(active, i));
  // A retry after the write: the entries are there, but the escalation may not have happened yet.
  if (!removed) return { ...none, written: a, escalate: needsEscalation ? active.step : null };
  let status: ApprovalRecord['status'] = 'pending';
  let escalate: number | null = null;
  if (active && active.requirements.every((_, i) => requirementMet(active, i))) status = completeStep(a, gi, now);
  else if (needsEscalation) escalate = active.step;
  const written = await Approval.findOneAndUpdate(
    { _id: a._id, organization_id: a.organization_id, rev: a.rev, status: 'pending' },
    { $set: { groups: a.groups.map((g) => g.toObject()), status, completed_at: status === 'pending' ? null : now }, $inc: { rev: 1 } },
    { returnDocument: 'after' },
  );
  // Another write came first: the workflow step retries and reads it.
  if (!written) throw new Error(`approval ${a.id} changed while its leaver was removed; retrying`);
  if (status !== 'pending')
    await emitApprovalEvent(
      s,
      written,
      'approval.completed',
      SYSTEM,
      `Approval of "${a.contract_title}" version ${a.version_number}: ${status}`,
      {
        override_reason: null,
      },
    );
  return { removed, escalate, written };
}

/**
 * Step 3 of a member's leaving: marks their pending decisions `removed` and moves each affected
 * step on; answers how many entries were marked. Skips a member reactivated meanwhile.
 * Compliance tasks have no assignee or owner field (models/compliance-task.ts): nothing of
 * theirs is left to reassign.
 */
export async function settleMemberApprovals(s: Engines, step: DeprovisionStep): Promise<number> {
  const { organizationId, userId, fullName } = step.input;
  const user = await User.findOne({ _id: userId, organization_id: organizationId }, { active: 1 }).lean();
  if (user && user.active !== false) return 0;
  const leaver: Leaver = { organizationId, userId, name: fullName };
  // Filtered here rather than by a path through two arrays of sub-documents, which FerretDB 1.24 does not match reliably.
  const pending = await Approval.find({ organization_id: leaver.organizationId, status: 'pending' }, { contract_id: 1, groups: 1 }).lean();
  let count = 0;
  for (const p of pending) {
    if (!p.groups.some((g) => naming(g, leaver.userId).length)) continue;
    const out = await changeApprovals(p.contract_id, () => removeFrom(s, leaver, p._id));
    count += out.removed;
    if (!out.written) continue;
    if (out.escalate !== null)
      await escalateApproval(s, { organizationId: leaver.organizationId, approvalId: out.written.id, step: out.escalate });
    await nudgeApprovalWorkflow(s, out.written.id);
  }
  return count;
}
