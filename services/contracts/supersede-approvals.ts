/**
 * An edit's effect on approvals: open requests for another version of the contract are
 * superseded, and a change to any fact the policies read (contract-facts.ts) supersedes the
 * open and the approved requests that were judged on other facts. It sits with contracts,
 * which records every change (versions, terms, facts): approvals read versions and facts and
 * are never called back.
 */
import { trusted, type Types } from 'mongoose';
import { APPROVAL_STATUSES, Approval } from '../../models/approval';
import { Contract } from '../../models/contract';
import { readFacts, type ContractFactsSource } from './contract-facts';

/** The statuses of a request that still counts, or may. */
const COUNTING: Array<(typeof APPROVAL_STATUSES)[number]> = ['pending', 'approved', 'overridden'];

// The workflow of each learns it on its next wake (a reminder or escalation finds the request closed).
const superseded = () => ({ $set: { status: 'superseded', completed_at: new Date() }, $inc: { rev: 1 } });

export async function supersedeOpenApprovals(
  organizationId: Types.ObjectId,
  contractId: Types.ObjectId,
  currentSha256: string,
): Promise<number> {
  const res = await Approval.updateMany(
    { organization_id: organizationId, contract_id: contractId, status: 'pending', version_sha256: trusted({ $ne: currentSha256 }) },
    superseded(),
  );
  return res.modifiedCount;
}

/** After a change to the contract, its terms or its vendor: requests judged on other facts than the current ones stop counting. */
export async function supersedeApprovalsOfOtherFacts(contract: ContractFactsSource): Promise<number> {
  const counting = {
    organization_id: contract.organization_id,
    contract_id: contract._id,
    status: trusted({ $in: COUNTING }),
  };
  // Most contracts (a bulk import's) have no request: one indexed read, and the facts are not read.
  if (!(await Approval.exists(counting))) return 0;
  const { sha256 } = await readFacts(contract);
  const res = await Approval.updateMany({ ...counting, facts_sha256: trusted({ $ne: sha256 }) }, superseded());
  return res.modifiedCount;
}

/** After a vendor's name or risk changed: the requests that covered it, for each of their contracts. */
export async function supersedeApprovalsOfVendor(vendor: { _id: Types.ObjectId; organization_id: Types.ObjectId }): Promise<void> {
  const contractIds = await Approval.distinct('contract_id', {
    organization_id: vendor.organization_id,
    status: trusted({ $in: COUNTING }),
    'facts.vendor.id': vendor._id.toHexString(),
  });
  const contracts = await Contract.find({ organization_id: vendor.organization_id, _id: trusted({ $in: contractIds }) });
  for (const c of contracts) await supersedeApprovalsOfOtherFacts(c);
}
