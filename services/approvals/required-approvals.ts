/** Which of the organization's policies a contract's current state calls for, grouped into ordered steps. */
import { Types } from 'mongoose';
import type { ContractDoc } from '../../models/contract';
import { ContractTerms } from '../../models/contract-terms';
import { ApprovalPolicy } from '../../models/approval-policy';
import { Vendor } from '../../models/vendor';
import { termsView } from '../contracts/contract-terms';
import { matchConditions, requiredCount, type Approvers, type Conditions, type ContractFacts } from './policy-rules';

export interface Requirement {
  policy_id: Types.ObjectId;
  policy_name: string;
  approvers: Approvers;
  required: number;
  reasons: string[];
  reminder_days: number;
  escalation_days: number | null;
  escalate_to_role: string;
}

export interface RequiredStep {
  step: number;
  requirements: Requirement[];
}

/** The counterparty's vendor: the linked one, else the organization's vendor of that name. */
export async function vendorRisk(contract: ContractDoc): Promise<string | null> {
  const vendor = contract.vendor_id
    ? await Vendor.findOne({ _id: contract.vendor_id, organization_id: contract.organization_id }, { risk_level: 1 }).lean()
    : await Vendor.findOne({ organization_id: contract.organization_id, name: contract.counterparty }, { risk_level: 1 }).lean();
  return vendor?.risk_level ?? null;
}

export async function requiredSteps(contract: ContractDoc): Promise<RequiredStep[]> {
  const [policies, terms, risk] = await Promise.all([
    ApprovalPolicy.find({ organization_id: contract.organization_id, active: true }).sort({ step: 1, created_at: 1 }).lean(),
    ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id }),
    vendorRisk(contract),
  ]);
  const facts: ContractFacts = {
    type: contract.type,
    value: contract.value ?? null,
    vendor_risk: risk,
    terms: termsView(contract.id, terms).terms,
  };
  const steps = new Map<number, Requirement[]>();
  for (const policy of policies) {
    const reasons = matchConditions((policy.conditions ?? {}) as Conditions, facts);
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
    });
    steps.set(policy.step, list);
  }
  return [...steps.entries()].sort((a, b) => a[0] - b[0]).map(([step, requirements]) => ({ step, requirements }));
}
