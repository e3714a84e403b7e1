/** Activities of the repository search index: the reindex's parts, and the event workflow's reflections. */
import { Context } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import {
  finishSearchRebuild,
  prepareSearchRebuild,
  rebuildSearchPart,
  type RebuildPart,
  type RebuildProgress,
} from '../services/search/rebuild-search-index';
import { reflectContracts } from '../services/search/reflect-contracts';
import { endOrganizationReindex, holdOrganizationReindex } from '../services/search/start-search-reindex';

/** The running workflow's id: an organization's reindex holds its claim under it. */
const workflowIdOf = () => Context.current().info.workflowExecution?.workflowId ?? '';

export function createSearchIndexActivities(s: Engines) {
  return {
    prepareSearchRebuild: () => prepareSearchRebuild(s),
    finishSearchRebuild: () => finishSearchRebuild(s).then(() => undefined),
    pruneSearchDocs: ({ organizationId, before }: { organizationId: string; before: string }) =>
      endOrganizationReindex(s, organizationId, before, workflowIdOf()),

    /** A retried attempt starts after the last page its predecessor reported. */
    async rebuildSearchPart(part: RebuildPart): Promise<RebuildProgress> {
      const ctx = Context.current();
      if (part.organizationId) await holdOrganizationReindex(s, part.organizationId, workflowIdOf());
      const resumed = ctx.info.heartbeatDetails as RebuildProgress | undefined;
      const before = resumed?.indexed ?? 0;
      const progress = await rebuildSearchPart(s, { ...part, after: resumed?.after ?? part.after }, (p) =>
        ctx.heartbeat({ ...p, indexed: p.indexed + before }),
      );
      return { ...progress, indexed: progress.indexed + before };
    },

    reflectContracts: ({ organizationId, contractIds }: { organizationId: string; contractIds: string[] }) =>
      reflectContracts(s, organizationId, contractIds, false),
  };
}

export type SearchIndexActivities = ReturnType<typeof createSearchIndexActivities>;
