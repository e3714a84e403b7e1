/**
 * The facts a contract's current version is judged on: never the key terms of an earlier text.
 * When the stored terms were extracted from another version (an edit the worker has not read
 * yet), they are extracted now, with the provider at hand, before anything is judged.
 */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import type { ContractDoc } from '../../models/contract';
import type { ContractVersionDoc } from '../../models/contract-version';
import { authorOf, currentOrFirstVersion } from '../contracts/contract-versions';
import { extractContractTerms } from '../contracts/contract-terms';
import { readFacts, type FactsRead } from '../contracts/contract-facts';
import { approvalErrors } from './errors';

export async function currentFacts(
  s: Engines,
  p: Principal,
  contract: ContractDoc,
): Promise<{ version: ContractVersionDoc; read: FactsRead }> {
  const version = await currentOrFirstVersion(contract, authorOf(p));
  let read = await readFacts(contract);
  if (read.termsOfVersion !== version.sha256) {
    await extractContractTerms(s, p.organizationId, contract.id);
    read = await readFacts(contract);
  }
  if (read.termsOfVersion !== version.sha256)
    throw approvalErrors.approval_terms_pending(
      `contract_id: the key terms of version ${version.number} (sha256 ${version.sha256}) are not extracted yet: the contract changed while they were read. Try again.`,
    );
  return { version, read };
}

/** What every approval request records of the contract, the version and facts it judged, and who asked (started or overridden). */
export function requestBasis(p: Principal, contract: ContractDoc, { version, read }: { version: ContractVersionDoc; read: FactsRead }) {
  return {
    organization_id: contract.organization_id,
    contract_id: contract._id,
    contract_title: contract.title,
    version_number: version.number,
    version_sha256: version.sha256,
    version_author_id: version.author_id ?? null,
    facts: read.facts,
    facts_sha256: read.sha256,
    requested_by: new Types.ObjectId(p.userId),
    requested_by_name: p.name,
  };
}
