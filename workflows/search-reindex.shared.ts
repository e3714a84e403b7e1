/** What starters of the search reindex share with it (workflows/search-reindex.ts). */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface SearchReindexInput {
  /** One organization's contracts, rewritten in place; else every contract into a new generation's index. */
  organizationId?: string;
  /** Carried across continue-as-new: the last contract written and when the run started. */
  cursor?: { after: string | null; indexed: number; startedAt: string };
}

// Interactive for now: on the bulk queue (2 slots) a test run's backlog held it past 180 s in CI.
export const searchReindex = workflowRef<[SearchReindexInput]>('searchReindexWorkflow', 'search-reindex');

/** The one rebuild of a mapping generation (per deployment: the alias names the deployment). */
export const generationReindexId = (alias: string, generation: number) => `search-reindex-${alias}-v${generation}`;
/** An owner's rebuild of one organization's documents; `run` tells the requests apart. */
export const organizationReindexId = (organizationId: string, run: string) => `search-reindex-${organizationId}-${run}`;
