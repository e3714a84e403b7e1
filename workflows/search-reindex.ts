/**
 * Rebuilds the repository search index from the store, durably: each part (an activity of up
 * to PART_BUDGET_MS) returns its cursor, which the workflow keeps, so a worker killed mid-way
 * costs at most the part it was running (and that part resumes from its last heartbeat).
 * - Every contract (a new mapping generation, or no index yet): the new index is made first
 *   and the run waits until every process writes to it too, then fills it, then moves the alias.
 * - One organization (`POST /admin/search/reindex`): its documents are rewritten in place, then
 *   those the run did not write (contracts gone) are removed.
 */
import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { SearchIndexActivities } from '../activities/search-index';
import type { SearchReindexInput } from './search-reindex.shared';

/** A part's time before it hands back its cursor. */
export const PART_BUDGET_MS = 30_000;

const { prepareSearchRebuild, finishSearchRebuild, pruneSearchDocs } = proxyActivities<SearchIndexActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10 },
});
const { rebuildSearchPart } = proxyActivities<SearchIndexActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

export async function searchReindexWorkflow({ organizationId, cursor }: SearchReindexInput): Promise<{ indexed: number }> {
  let index: string | undefined;
  if (!organizationId) {
    index = await prepareSearchRebuild();
    // Until every process has seen the new index, a write could miss it (contract-search-index.ts, TARGETS_TTL_MS).
    if (!cursor) await sleep('12 seconds');
  }
  const startedAt = cursor?.startedAt ?? new Date().toISOString();
  let after = cursor?.after ?? null;
  let indexed = cursor?.indexed ?? 0;
  for (;;) {
    const part = await rebuildSearchPart({ organizationId, after, index, budgetMs: PART_BUDGET_MS });
    after = part.after;
    indexed += part.indexed;
    if (part.done) break;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof searchReindexWorkflow>({ organizationId, cursor: { after, indexed, startedAt } });
    }
  }
  if (organizationId) await pruneSearchDocs({ organizationId, before: startedAt });
  else await finishSearchRebuild();
  return { indexed };
}
