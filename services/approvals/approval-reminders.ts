/**
 * What the approval workflow does in time: plan from the stored request, mail the approvers of
 * a step that became active, remind them, and escalate a step that waited too long to its
 * manager role (whose members may then decide too). Every message has a dedupe key and the
 * escalation is one write under the contract's approval claim, so a retried activity or a restarted worker sends
 * nothing twice.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { ROLES, roleAtLeast, type Role } from '../../platform/security/rbac';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { Contract } from '../../models/contract';
import { User } from '../../models/user';
import { queueMail } from '../mail/queue';
import { approvalMail } from '../mail/messages';
import type { ApprovalPlan, ApprovalWorkflowInput } from '../../workflows/approval.shared';
import { emitApprovalEvent } from './approval-events';
import { approvalLinkToken } from './approval-link';
import { changeApprovals } from './approval-claim';
import type { Approvers } from './policy-rules';
import { isSelf } from './approval-view';

type Group = ApprovalRecord['groups'][number];

const load = ({ organizationId, approvalId }: ApprovalWorkflowInput) =>
  Approval.findOne({ _id: approvalId, organization_id: organizationId });

export async function planApproval(input: ApprovalWorkflowInput): Promise<ApprovalPlan> {
  const a = await load(input);
  const g = a?.status === 'pending' ? a.groups.find((x) => x.status === 'active') : undefined;
  if (!a || !g) return { open: false, step: null, reminderDays: 0, escalationDays: null, escalated: false };
  const escalation = g.requirements.map((r) => r.escalation_days).filter((d): d is number => typeof d === 'number');
  return {
    open: true,
    step: g.step,
    reminderDays: Math.min(...g.requirements.map((r) => r.reminder_days)),
    escalationDays: escalation.length ? Math.min(...escalation) : null,
    escalated: !!g.escalated_at,
  };
}

/** Members who may decide on the step and have not: by role, by name, or by escalation; the requester and the author only if a policy allows it. */
async function approversOf(a: ApprovalRecord, g: Group, escalatedOnly = false) {
  const decided = new Set(g.decisions.map((d) => d.user_id.toHexString()));
  const roles = new Set<Role>();
  const ids = new Set<string>();
  for (const r of g.requirements) {
    if (g.escalated_at || escalatedOnly) ROLES.filter((x) => roleAtLeast(x, r.escalate_to_role as Role)).forEach((x) => roles.add(x));
    if (escalatedOnly) continue;
    const ap = r.approvers as Approvers;
    if (ap.kind === 'role') ROLES.filter((x) => roleAtLeast(x, ap.role)).forEach((x) => roles.add(x));
    else ap.user_ids.forEach((id) => ids.add(id));
  }
  const users = await User.find({
    organization_id: a.organization_id,
    $or: [{ role: trusted({ $in: [...roles] }) }, { _id: trusted({ $in: [...ids].map((id) => new Types.ObjectId(id)) }) }],
  })
    .limit(100)
    .lean();
  const selfAllowed = g.requirements.some((r) => r.allow_self_approval);
  return users.filter((u) => u.role !== 'viewer' && !decided.has(u._id.toHexString()) && (selfAllowed || !isSelf(a, u._id.toHexString())));
}

/** Mails each approver of the active step `step`; false when that step is no longer active. */
async function mailStep(s: Engines, input: ApprovalWorkflowInput, step: number, kind: 'request' | 'reminder' | 'escalation', key: string) {
  const a = await load(input);
  const g = a?.status === 'pending' ? a.groups.find((x) => x.status === 'active' && x.step === step) : undefined;
  if (!a || !g) return false;
  const contract = await Contract.findOne({ _id: a.contract_id, organization_id: a.organization_id }, { counterparty: 1 }).lean();
  for (const u of await approversOf(a, g, kind === 'escalation')) {
    await queueMail(s, {
      organizationId: a.organization_id,
      kind: kind === 'request' ? 'approval_request' : kind === 'reminder' ? 'approval_reminder' : 'approval_escalation',
      to: u.email,
      dedupeKey: `approval:${a.id}:${step}:${key}:${u._id.toHexString()}`,
      ref: { approval_id: a.id, contract_id: a.contract_id.toHexString() },
      message: approvalMail(s.config.publicBaseUrl, {
        kind,
        approvalId: a.id,
        token: approvalLinkToken(s.config, {
          approvalId: a.id,
          userId: u._id.toHexString(),
          versionSha256: a.version_sha256,
          sessionEpoch: u.session_epoch,
        }),
        linkDays: s.config.APPROVAL_LINK_DAYS,
        title: a.contract_title,
        counterparty: contract?.counterparty ?? '',
        step,
        version: a.version_number,
        requester: a.requested_by_name ?? 'A colleague',
        reasons: g.requirements.flatMap((r) => r.reasons),
      }),
    });
  }
  return true;
}

export const notifyApprovers = (s: Engines, input: ApprovalWorkflowInput & { step: number }) =>
  mailStep(s, input, input.step, 'request', 'request');

export const sendApprovalReminder = (s: Engines, input: ApprovalWorkflowInput & { step: number; n: number }) =>
  mailStep(s, input, input.step, 'reminder', `reminder-${input.n}`);

/** Escalates the active step once: the write that sets `escalated_at`, then the event and the mail. */
export async function escalateApproval(s: Engines, input: ApprovalWorkflowInput & { step: number }): Promise<boolean> {
  const found = await load(input);
  if (!found) return false;
  // Under the contract's approval claim, so a decision landing at the same moment comes before or after, never across.
  const open = await changeApprovals(found.contract_id, async () => {
    const a = await load(input);
    const gi = a?.status === 'pending' ? a.groups.findIndex((x) => x.status === 'active' && x.step === input.step) : -1;
    if (!a || gi < 0) return false;
    const g = a.groups[gi]!;
    if (g.escalated_at) return true;
    g.escalated_at = new Date();
    const written = await Approval.findOneAndUpdate(
      { _id: a._id, rev: a.rev, status: 'pending' },
      { $set: { groups: a.groups.map((x) => x.toObject()) }, $inc: { rev: 1 } },
      { returnDocument: 'after' },
    );
    // Another write came first (an edit superseded it): the workflow plans again.
    if (!written) return false;
    const role = g.requirements[0]?.escalate_to_role ?? 'admin';
    await emitApprovalEvent(
      written,
      'approval.escalated',
      { type: 'system', id: null, name: 'approval reminders' },
      `Step ${g.step} of the approval of "${a.contract_title}" escalated to ${role}`,
      { step: g.step, escalated_to_role: role },
    );
    return true;
  });
  return open && mailStep(s, input, input.step, 'escalation', 'escalation');
}
