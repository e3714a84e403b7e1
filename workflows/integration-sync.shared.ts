/** What starters of the integration sync workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface IntegrationSyncStart {
  organizationId: string;
  integrationId: string;
  /** Only these contracts (a contract event); all of the organization's when absent. */
  contractIds?: string[];
}

/** A run's counts so far (its `progress` query) and at its end (its result). */
export interface SyncProgress {
  total: number;
  synced: number;
  failed: number;
  batches: number;
  last_error: string | null;
}

export const integrationSync = workflowRef<[IntegrationSyncStart]>('integrationSyncWorkflow', 'integration-sync', 'bulk');
export const integrationSyncWorkflowId = (eventId: string, integrationId: string) => `integration-sync-${eventId}-${integrationId}`;
/** A requested full sync (`crm-sync-…`, `storage-sync-…`): one per request, each findable by the integration. */
export const fullSyncWorkflowId = (kind: string, integrationId: string, startedAt: number) => `${kind}-sync-${integrationId}-${startedAt}`;
