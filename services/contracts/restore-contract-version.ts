/** Restoring an old version: the contract takes its text of record again, as a new version. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import type { ContractDoc } from '../../models/contract';
import { getContract } from './get-contract';
import { findVersion } from './contract-versions';
import { applyContractChanges } from './edit-contract';

export async function restoreContractVersion(
  s: Engines,
  p: Principal,
  contractId: unknown,
  number: number,
  note?: string,
): Promise<ContractDoc> {
  const contract = await getContract(p, contractId);
  const v = await findVersion(contract, number);
  return applyContractChanges(
    s,
    p,
    contract,
    { content: v.content ?? '', document_id: v.document_id?.toHexString() ?? null, version_note: note ?? `Restored version ${number}` },
    number,
  );
}
