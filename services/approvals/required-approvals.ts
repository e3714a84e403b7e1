/**
 * Which of the organization's policies a contract's facts call for, grouped into ordered steps,
 * and whether an approval request covers them. A policy applies when it matches the terms as
 * members corrected them or as the version's text reads them: a correction never takes a
 * contract out of a policy's reach.
 */
import type { Types } from 'mongoose';
import { canonicalJson } from '../../platform/security/canonical-json';
import { ApprovalPolicy } from '../../models/approval-policy';
import type { ApprovalRecord } from '../../models/approval';
import { matchConditions, requiredCount, type Approvers, type Conditions, type ContractFacts } from './policy-rules';
import type { ApprovalFacts } from '../contracts/contract-facts';

export interface Requirement {
  policy_id: Types.ObjectId;
  policy_name: string;
  approvers: Approvers;
  required: number;
  reasons: string[];
  reminder_days: number;
  escalation_days: number | null;
  escalate_to_role: string;
  allow_self_approval: boolean;
}

export interface RequiredStep {
  step: number;
  requirements: Requirement[];
}

export async function requiredSteps(organizationId: Types.ObjectId, facts: ApprovalFacts): Promise<RequiredStep[]> {
  const policies = await ApprovalPolicy.find({ organization_id: organizationId, active: true }).sort({ step: 1, created_at: 1 }).lean();
  const held: ContractFacts = { type: facts.type, value: facts.value, vendor_risk: facts.vendor?.risk ?? null, terms: facts.terms };
  const read: ContractFacts = { ...held, terms: { ...facts.terms, ...facts.text_reads } };
  const steps = new Map<number, Requirement[]>();
  for (const policy of policies) {
    const conditions = (policy.conditions ?? {}) as Conditions;
    const reasons =
      matchConditions(conditions, held) ??
      matchConditions(conditions, read)?.map((r) => `${r} (as the text reads; a member's correction says otherwise)`);
    if (!reasons) continue;
    const approvers = policy.approvers as Approvers;
    const list = steps.get(policy.step) ?? [];
    list.push({
      policy_id: policy._id,
      policy_name: policy.name,
      approvers,
      required: requiredCount(approvers),
      reasons,
      reminder_days: policy.reminder_days,
      escalation_days: policy.escalation_days ?? null,
      escalate_to_role: policy.escalate_to_role,
      allow_self_approval: policy.allow_self_approval ?? false,
    });
    steps.set(policy.step, list);
  }
  return [...steps.entries()].sort((a, b) => a[0] - b[0]).map(([step, requirements]) => ({ step, requirements }));
}

/**
 * The requirements of `steps` that an approved (or overridden) request does not cover: one it
 * approved (or that was overridden) for the same policy, asking at least as much of as many
 * approvers. A policy added or made stronger since is not covered.
 */
export function uncovered(a: ApprovalRecord, steps: readonly RequiredStep[]): Requirement[] {
  const done = a.groups
    .filter((g) => a.status === 'overridden' || g.status === 'approved')
    .flatMap((g) => g.requirements)
    .map((r) => ({
      policy: r.policy_id.toHexString(),
      approvers: canonicalJson(r.approvers),
      required: r.required,
      self: r.allow_self_approval ?? false,
    }));
  return steps
    .flatMap((g) => g.requirements)
    .filter(
      (r) =>
        !done.some(
          (d) =>
            d.policy === r.policy_id.toHexString() &&
            d.approvers === canonicalJson(r.approvers) &&
            d.required >= r.required &&
            (!d.self || r.allow_self_approval),
        ),
    );
}
