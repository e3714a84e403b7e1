/** A contract by id, of the caller's organization only: what every use case on one contract starts from. */
import { findOwned } from '../../platform/find-owned';
import { Contract, type ContractDoc } from '../../models/contract';

export const getContract = (owner: { organizationId: string }, id: unknown): Promise<ContractDoc> =>
  findOwned(Contract, owner, id, 'Contract');
