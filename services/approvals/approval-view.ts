/** An approval request as the API shows it, and the rules of who may act on its steps. */
import type { Principal } from '../../platform/security/principal';
import { roleAtLeast, type Role } from '../../platform/security/rbac';
import type { ApprovalRecord } from '../../models/approval';
import { eligible, type Approvers } from './policy-rules';
import type { ApprovalFacts } from '../contracts/contract-facts';

type Group = ApprovalRecord['groups'][number];

/** Separation of duties: the member who requested the approval and the author of the version under review. */
export const isSelf = (a: ApprovalRecord, userId: string) =>
  a.requested_by?.toHexString() === userId || a.version_author_id?.toHexString() === userId;

/**
 * The indexes of the step's requirements the member may count for (escalation included); for
 * the requester or the version's author, only those whose policy allows self-approval, unless
 * `separation` is false (to tell them why they may not).
 */
export function requirementsFor(a: ApprovalRecord, g: Group, user: { id: string; role: Role }, separation = true): number[] {
  const self = separation && isSelf(a, user.id);
  return g.requirements.flatMap((r, i) =>
    (!self || r.allow_self_approval) &&
    eligible(r.approvers as Approvers, user, g.escalated_at ? (r.escalate_to_role as Role) : null, roleAtLeast)
      ? [i]
      : [],
  );
}

/** Approvals each requirement of the step has so far. */
export const approvalsOf = (g: Group, i: number) =>
  g.decisions.filter((d) => d.decision === 'approved' && d.requirements.includes(i)).length;

/**
 * Whether requirement `i` of the step holds. Named approvers who left (`removed`) no longer
 * count: "every member" asks only those still there, "any N of" at most as many as are left;
 * and a requirement whose named approvers all left still needs one approval (by escalation).
 */
export function requirementMet(g: Group, i: number): boolean {
  const r = g.requirements[i]!;
  const ap = r.approvers as Approvers;
  const left = g.decisions.filter((d) => d.decision === 'removed' && d.requirements.includes(i)).length;
  const needed = ap.kind === 'role' ? r.required : Math.min(r.required, ap.user_ids.length - left);
  return approvalsOf(g, i) >= Math.max(1, needed);
}

/** Approves step `gi` and activates the next one; answers the request's status (`approved` after the last step). */
export function completeStep(a: ApprovalRecord, gi: number, now: Date): 'pending' | 'approved' {
  const group = a.groups[gi]!;
  group.status = 'approved';
  group.completed_at = now;
  const next = a.groups[gi + 1];
  if (!next) return 'approved';
  next.status = 'active';
  next.activated_at = now;
  return 'pending';
}

export const userOf = (p: Principal) => ({ id: p.userId, role: p.role });

export function approvalView(a: ApprovalRecord) {
  return {
    id: a.id,
    contract_id: a.contract_id.toHexString(),
    contract_title: a.contract_title,
    version_number: a.version_number,
    version_sha256: a.version_sha256,
    version_author_id: a.version_author_id?.toHexString() ?? null,
    facts: (a.facts as ApprovalFacts | null) ?? null,
    facts_sha256: a.facts_sha256 ?? null,
    status: a.status,
    groups: a.groups.map((g) => ({
      step: g.step,
      status: g.status,
      activated_at: g.activated_at ?? null,
      completed_at: g.completed_at ?? null,
      escalated_at: g.escalated_at ?? null,
      requirements: g.requirements.map((r, i) => ({
        policy_id: r.policy_id.toHexString(),
        policy_name: r.policy_name,
        approvers: r.approvers as Approvers,
        required: r.required,
        approved: approvalsOf(g, i),
        reasons: r.reasons,
        reminder_days: r.reminder_days,
        escalation_days: r.escalation_days ?? null,
        escalate_to_role: r.escalate_to_role,
        allow_self_approval: r.allow_self_approval ?? false,
      })),
      decisions: g.decisions.map((d) => ({
        user_id: d.user_id.toHexString(),
        name: d.name,
        decision: d.decision,
        comment: d.comment ?? null,
        at: d.at,
      })),
    })),
    requested_by: a.requested_by?.toHexString() ?? null,
    requested_by_name: a.requested_by_name ?? null,
    override: a.override
      ? {
          user_id: a.override.user_id?.toHexString() ?? null,
          name: a.override.name ?? null,
          reason: a.override.reason ?? '',
          at: a.override.at ?? null,
          missing: a.override.missing ?? [],
        }
      : null,
    completed_at: a.completed_at ?? null,
    workflow_id: a.workflow_id ?? null,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}
