/**
 * CRM and storage sync steps adapted to Temporal (services/integrations/sync-contracts.ts);
 * vendor refusals become the failures ./vendor-failure.ts describes, and a disconnected
 * integration ends the run.
 */
import type { Engines } from '../platform/engines';
import { planSync, recordSync, upsertBatch, type IntegrationRef } from '../services/integrations/sync-contracts';
import { failingAsVendor } from './vendor-failure';

export function createIntegrationSyncActivities(s: Engines) {
  return {
    integrationSyncPlan: failingAsVendor(planSync),
    upsertIntegrationBatch: failingAsVendor((input: IntegrationRef & { contractIds: string[] }) => upsertBatch(s, input)),
    recordIntegrationSync: recordSync,
  };
}

export type IntegrationSyncActivities = ReturnType<typeof createIntegrationSyncActivities>;
