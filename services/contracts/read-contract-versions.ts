/** A member's reads of a contract's versions, by the contract's id (of the caller's organization only). */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findVersion, listVersions } from './contract-versions';
import { diffContractVersions } from './diff-contract-versions';
import { getContract } from './get-contract';

export async function listContractVersions(p: Principal, contractId: unknown) {
  return listVersions(await getContract(p, contractId));
}

export async function getContractVersion(p: Principal, contractId: unknown, number: number) {
  return findVersion(await getContract(p, contractId), number);
}

/** The redline between two versions, with the contract's title for its HTML page. */
export async function compareContractVersions(s: Engines, p: Principal, contractId: unknown, a: number, b: number) {
  const contract = await getContract(p, contractId);
  return { title: contract.title, diff: await diffContractVersions(s, contract, a, b) };
}
