/**
 * The embedding-model migration: re-embeds, a page at a time, every stored chunk whose
 * vector another model made, until none is left. Searches filter on the current model,
 * so a chunk is invisible between the switch and its page. Started by each worker at
 * start (services/search/embedding-migration.ts); with nothing stale it ends after one step.
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ReembedActivities } from '../activities/reembed';

/** Chunks per step: a few seconds of embedding on one core with the local model. */
export const REEMBED_PAGE = 64;

const { reembedStaleChunks } = proxyActivities<ReembedActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

export async function reembedWorkflow({ done = 0 }: { done?: number } = {}): Promise<number> {
  for (;;) {
    const n = await reembedStaleChunks({ limit: REEMBED_PAGE });
    if (!n) return done;
    done += n;
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof reembedWorkflow>({ done });
  }
}
