/**
 * The gate before signing: today's policies, evaluated on today's facts (the current version's
 * key terms extracted first, never an earlier text's), must each be covered by an approved or
 * overridden request of the exact document being sent (its SHA-256) judged on the same facts.
 */
import { trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import type { ContractDoc } from '../../models/contract';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { ApprovalPolicy } from '../../models/approval-policy';
import { approvalErrors } from './errors';
import { describeApprovers } from './policy-rules';
import { requiredSteps, uncovered } from './required-approvals';
import { currentFacts } from './current-facts';
import { readFacts, type ApprovalFacts } from '../contracts/contract-facts';

export interface GateAnswer {
  /** The request that covers the document and its facts; null when no policy applies and none was obtained. */
  approval: ApprovalRecord | null;
  facts: ApprovalFacts;
}

/** The approval that lets this exact document go out on today's facts, else 409 `approval_required`. */
export async function approvalForSigning(s: Engines, p: Principal, contract: ContractDoc, documentSha256: string): Promise<GateAnswer> {
  // Without a policy nothing is judged: the send neither waits for an extraction nor does bulk work's share of it.
  if (!(await ApprovalPolicy.exists({ organization_id: contract.organization_id, active: true })))
    return { approval: null, facts: (await readFacts(contract)).facts };
  const { version, read } = await currentFacts(s, p, contract);
  if (version.sha256 !== documentSha256)
    throw approvalErrors.approval_required(
      `contract_id: the contract changed while it was being sent (now version ${version.number}); send it again`,
    );
  const scope = { organization_id: contract.organization_id, contract_id: contract._id, version_sha256: documentSha256 };
  const [steps, done] = await Promise.all([
    requiredSteps(contract.organization_id, read.facts),
    Approval.find({ ...scope, facts_sha256: read.sha256, status: trusted({ $in: ['approved', 'overridden'] }) }).sort({ completed_at: -1 }),
  ]);
  const covering = done.find((a) => uncovered(a, steps).length === 0);
  if (covering || !steps.length) return { approval: covering ?? null, facts: read.facts };
  const open = await Approval.findOne({ ...scope, facts_sha256: read.sha256, status: 'pending' });
  const missing = steps
    .map((g) => {
      const state = open?.groups.find((x) => x.step === g.step)?.status ?? 'not requested';
      const who = g.requirements.map((r) => `${r.policy_name}: ${describeApprovers(r.approvers)} (${r.reasons.join('; ')})`).join(', ');
      return `step ${g.step} [${state}]: ${who}`;
    })
    .join('; ');
  const partial = done[0]
    ? ` Request ${done[0].id} is ${done[0].status} but does not cover ${uncovered(done[0], steps)
        .map((r) => r.policy_name)
        .join(', ')} as the policies stand now.`
    : '';
  throw approvalErrors.approval_required(
    `contract_id: this version (sha256 ${documentSha256}) requires approval before signing: ${missing}.${partial}${open ? '' : ' Start it with POST /contracts/{id}/approvals.'}`,
  );
}
