/**
 * `POST /chat/sync-contracts`: re-indexes every contract of an organization into
 * `contracts_kb`, a page of ids at a time, then removes chunks older than the run
 * (contracts gone since). Large organizations continue as new with their cursor.
 */
import { continueAsNew, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { ChatActivities } from '../activities/chat';

export const SYNC_PAGE = 50;

const { listContractIds, pruneContractIndex } = proxyActivities<ChatActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});
// A local activity: the per-event re-index (one short step) then finishes in one workflow
// task, which roughly halves its cost on the Temporal server in a burst of contract events.
const { reindexContract } = proxyLocalActivities<ChatActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});
const { indexContracts } = proxyActivities<ChatActivities>({
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

/** One contract after a contract event: re-indexed as it is now, or removed when gone. */
export async function contractIndexWorkflow({ organizationId, contractId }: { organizationId: string; contractId: string }): Promise<number> {
  return reindexContract({ organizationId, contractId });
}
