/**
 * `POST /chat/sync-contracts`: re-indexes every contract of an organization into
 * `contracts_kb`, a page of ids at a time, then removes chunks older than the run
 * (contracts gone since). Large organizations continue as new with their cursor.
 */
import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ContractIndexActivities } from '../activities/contract-index';
import type { SearchIndexActivities } from '../activities/search-index';
import { contractChangedSignal, type ContractIndexInput } from './contract-index.shared';

export const SYNC_PAGE = 50;

const { listContractIds, pruneContractIndex } = proxyActivities<ContractIndexActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});
const { reflectContracts } = proxyActivities<SearchIndexActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});
const { indexContracts } = proxyActivities<ContractIndexActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

export interface SyncContractsInput {
  organizationId: string;
  /** Carried across continue-as-new. */
  cursor?: { afterId: string; indexed: number; startedAt: string };
}

export async function syncContractsWorkflow({ organizationId, cursor }: SyncContractsInput): Promise<{ contracts: number }> {
  // Workflow time is deterministic; chunks written by this run are newer than it.
  const startedAt = cursor?.startedAt ?? new Date().toISOString();
  let afterId: string | null = cursor?.afterId ?? null;
  let indexed = cursor?.indexed ?? 0;
  for (;;) {
    const ids = await listContractIds({ organizationId, afterId, limit: SYNC_PAGE });
    if (!ids.length) break;
    await indexContracts({ organizationId, contractIds: ids });
    indexed += ids.length;
    afterId = ids.at(-1)!;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof syncContractsWorkflow>({ organizationId, cursor: { afterId, indexed, startedAt } });
    }
  }
  await pruneContractIndex({ organizationId, before: startedAt });
  return { contracts: indexed };
}

/**
 * Contracts of one organization after contract events (`index-contracts-<organizationId>`,
 * signalled with start by services/search/contract-index.ts): each is re-indexed as it is now
 * (chat chunks and search document; the search document only after terms or signature events), or removed
 * when gone, in batches of up to SYNC_PAGE. A burst of events costs the Temporal server a signal
 * per relay round trip (the events that came together share one) and a few workflow tasks per
 * batch, instead of a workflow per event. The workflow ends when nothing is due; a signal that
 * arrives as it ends makes the server hand it one more task, so no contract is dropped.
 */
export async function contractIndexWorkflow({ organizationId, contractIds = [], searchIds = [] }: ContractIndexInput): Promise<number> {
  const due = new Set(contractIds);
  // Contracts whose text did not change (terms, signatures): their search document only.
  const dueSearch = new Set(searchIds);
  setHandler(contractChangedSignal, (changed) => {
    if ('contractIds' in changed && changed.searchOnly) for (const id of changed.contractIds) dueSearch.add(id);
    else for (const id of 'contractIds' in changed ? changed.contractIds : [changed.contractId]) due.add(id);
  });
  let indexed = 0;
  // The starting signal comes with the first task; this waits for it to be handled.
  await condition(() => due.size + dueSearch.size > 0);
  while (due.size + dueSearch.size > 0) {
    if (due.size > 0) {
      const batch = [...due].slice(0, SYNC_PAGE);
      for (const id of batch) {
        due.delete(id);
        dueSearch.delete(id);
      }
      await indexContracts({ organizationId, contractIds: batch });
      indexed += batch.length;
    } else {
      const batch = [...dueSearch].slice(0, SYNC_PAGE);
      for (const id of batch) dueSearch.delete(id);
      await reflectContracts({ organizationId, contractIds: batch });
    }
    if (due.size + dueSearch.size > 0 && workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof contractIndexWorkflow>({ organizationId, contractIds: [...due], searchIds: [...dueSearch] });
    }
  }
  return indexed;
}
