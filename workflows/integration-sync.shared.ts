/** What starters of the integration sync workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface IntegrationSyncStart {
  organizationId: string;
  integrationId: string;
  /** Only these contracts (a contract event); all of the organization's when absent. */
  contractIds?: string[];
}

export const integrationSync = workflowRef<[IntegrationSyncStart]>('integrationSyncWorkflow', 'integration-sync', 'bulk');
export const integrationSyncWorkflowId = (eventId: string, integrationId: string) => `integration-sync-${eventId}-${integrationId}`;
