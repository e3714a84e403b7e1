/**
 * The gate before signing: when the organization's policies require approval of the contract,
 * the exact text or PDF being sent (its SHA-256) must have an approved or overridden request.
 */
import { trusted } from 'mongoose';
import type { ContractDoc } from '../../models/contract';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { approvalErrors } from './errors';
import { describeApprovers } from './policy-rules';
import { requiredSteps } from './required-approvals';

/** The approval that lets this exact document go out (null when none is needed), else 409 `approval_required`. */
export async function approvalForSigning(contract: ContractDoc, documentSha256: string): Promise<ApprovalRecord | null> {
  const [steps, done] = await Promise.all([
    requiredSteps(contract),
    Approval.findOne({
      organization_id: contract.organization_id,
      contract_id: contract._id,
      version_sha256: documentSha256,
      status: trusted({ $in: ['approved', 'overridden'] }),
    }).sort({ completed_at: -1 }),
  ]);
  if (done || !steps.length) return done;
  const open = await Approval.findOne({
    organization_id: contract.organization_id,
    contract_id: contract._id,
    version_sha256: documentSha256,
    status: 'pending',
  });
  const missing = steps
    .map((g) => {
      const state = open?.groups.find((x) => x.step === g.step)?.status ?? 'not requested';
      const who = g.requirements.map((r) => `${r.policy_name}: ${describeApprovers(r.approvers)} (${r.reasons.join('; ')})`).join(', ');
      return `step ${g.step} [${state}]: ${who}`;
    })
    .join('; ');
  throw approvalErrors.approval_required(
    `contract_id: this version (sha256 ${documentSha256}) requires approval before signing: ${missing}.${open ? '' : ' Start it with POST /contracts/{id}/approvals.'}`,
  );
}
