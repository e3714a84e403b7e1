/** Restoring an old version: the contract takes its text of record again, as a new version. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import type { ContractDoc } from '../../models/contract';
import { findVersion } from './contract-versions';
import { updateContract } from './edit-contract';

export async function restoreContractVersion(
  s: Engines,
  p: Principal,
  contract: ContractDoc,
  number: number,
  note?: string,
): Promise<ContractDoc> {
  const v = await findVersion(contract, number);
  return updateContract(
    s,
    p,
    contract,
    { content: v.content ?? '', document_id: v.document_id?.toHexString() ?? null, version_note: note ?? `Restored version ${number}` },
    number,
  );
}
