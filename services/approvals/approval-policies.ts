/** An organization's approval policies: listed to every member, written by admins and owners. */
import { Types, trusted } from 'mongoose';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { orgFilter } from '../../models/base';
import { ApprovalPolicy, type ApprovalPolicyDoc } from '../../models/approval-policy';
import { User } from '../../models/user';
import type { Approvers, PolicyRule } from './policy-rules';

/** Named approvers must be members of the organization, and able to approve (not viewers). */
async function checkMembers(p: Principal, a: Approvers): Promise<void> {
  if (a.kind === 'role') return;
  const found = await User.find(
    { ...orgFilter(p.organizationId), _id: trusted({ $in: a.user_ids.map((id) => new Types.ObjectId(id)) }) },
    { role: 1 },
  ).lean();
  const known = new Map(found.map((u) => [u._id.toHexString(), u.role]));
  const missing = a.user_ids.find((id) => !known.has(id));
  if (missing) throw badRequest(`approvers.user_ids: ${missing} is not a member of the organization`, 'validation_failed');
  const viewer = a.user_ids.find((id) => known.get(id) === 'viewer');
  if (viewer) throw badRequest(`approvers.user_ids: ${viewer} is a viewer, who cannot approve`, 'validation_failed');
}

export const listPolicies = (organizationId: string) => ApprovalPolicy.find(orgFilter(organizationId)).sort({ step: 1, created_at: 1 });

export async function createPolicy(p: Principal, rule: PolicyRule): Promise<ApprovalPolicyDoc> {
  await checkMembers(p, rule.approvers);
  return ApprovalPolicy.create({ ...rule, organization_id: new Types.ObjectId(p.organizationId) });
}

/** Replaces the rule; requests already started keep the copy they took. */
export async function replacePolicy(p: Principal, id: string, rule: PolicyRule): Promise<ApprovalPolicyDoc> {
  const policy = await findOwned(ApprovalPolicy, p, id, 'Approval policy');
  await checkMembers(p, rule.approvers);
  policy.set(rule);
  policy.markModified('conditions');
  policy.markModified('approvers');
  await policy.save();
  return policy;
}

export async function deletePolicy(p: Principal, id: string): Promise<void> {
  const policy = await findOwned(ApprovalPolicy, p, id, 'Approval policy');
  await ApprovalPolicy.deleteOne({ _id: policy._id, organization_id: policy.organization_id });
}

export function policyView(d: ApprovalPolicyDoc) {
  return {
    id: d.id,
    name: d.name,
    step: d.step,
    conditions: (d.conditions ?? {}) as PolicyRule['conditions'],
    approvers: d.approvers as Approvers,
    reminder_days: d.reminder_days,
    escalation_days: d.escalation_days ?? null,
    escalate_to_role: d.escalate_to_role,
    active: d.active,
    allow_self_approval: d.allow_self_approval ?? false,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}
