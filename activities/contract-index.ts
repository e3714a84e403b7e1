/**
 * Activities keeping `contracts_kb` current: for `POST /chat/sync-contracts`, page through
 * an organization's contract ids, (re)index a page of contracts, and drop what the run did
 * not touch (contracts deleted without their vectors being removed); for contract events,
 * re-index the contracts of a batch.
 */
import { Context } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import { indexContracts, listContractIds } from '../services/search/contract-index';
import { deleteIndexedBefore } from '../services/search/vector-store';

export function createContractIndexActivities(s: Engines) {
  return {
    async listContractIds({
      organizationId,
      afterId,
      limit,
    }: {
      organizationId: string;
      afterId: string | null;
      limit: number;
    }): Promise<string[]> {
      return listContractIds(organizationId, afterId, limit);
    },

    async indexContracts({ organizationId, contractIds }: { organizationId: string; contractIds: string[] }): Promise<number> {
      return indexContracts(s, organizationId, contractIds, (id) => Context.current().heartbeat(id));
    },

    async pruneContractIndex({ organizationId, before }: { organizationId: string; before: string }): Promise<number> {
      return deleteIndexedBefore(s, 'contracts_kb', organizationId, new Date(before));
    },
  };
}

export type ContractIndexActivities = ReturnType<typeof createContractIndexActivities>;
