/**
 * One integration's CRM or storage sync: the organization's contracts (or the one contract
 * of an event) upserted a batch at a time, a batch being as many as the vendor takes in one
 * call. Upserts are keyed by contract id, so retried batches change nothing twice; a 429
 * waits as long as the vendor's Retry-After says (the activity sets the next retry's delay).
 * The `progress` query reports counts while it runs; the summary is stored on the integration.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  defineQuery,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { IntegrationSyncActivities } from '../activities/integration-sync';
import type { ContractIndexActivities } from '../activities/contract-index';
import type { SyncProgress } from './integration-sync.shared';

const { integrationSyncPlan, recordIntegrationSync } = proxyActivities<IntegrationSyncActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});
const { listContractIds } = proxyActivities<ContractIndexActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});
const { upsertIntegrationBatch } = proxyActivities<IntegrationSyncActivities>({
  startToCloseTimeout: '2 minutes',
  // The batch heartbeats every 5 s while the vendor works: a killed worker's batch is retried within 30 s.
  heartbeatTimeout: '30 seconds',
  // A 429's Retry-After replaces this schedule for the next try (nextRetryDelay).
  retry: { maximumAttempts: 8, initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const progressQuery = defineQuery<SyncProgress>('progress');

export interface IntegrationSyncInput {
  organizationId: string;
  integrationId: string;
  /** Only these contracts (a contract event); all of the organization's when absent. */
  contractIds?: string[];
  /** A full run's place and counts, carried across continue-as-new. */
  cursor?: { afterId: string; progress: SyncProgress };
}

/** Failures that end the whole run: the credentials no longer work or the integration is gone. */
const FATAL = new Set(['VendorAuth', 'IntegrationGone']);

export async function integrationSyncWorkflow({
  organizationId,
  integrationId,
  contractIds,
  cursor,
}: IntegrationSyncInput): Promise<SyncProgress> {
  const progress: SyncProgress = cursor?.progress ?? {
    total: contractIds?.length ?? 0,
    synced: 0,
    failed: 0,
    batches: 0,
    last_error: null,
  };
  // Registered before the first await, so a query is answered from the start.
  setHandler(progressQuery, () => progress);
  const plan = await integrationSyncPlan({ organizationId, integrationId });
  if (!contractIds && !cursor) progress.total = plan.total;

  let afterId: string | null = cursor?.afterId ?? null;
  const pending = contractIds ? [...contractIds] : null;
  for (;;) {
    const ids: string[] = pending
      ? pending.splice(0, plan.batchSize)
      : await listContractIds({ organizationId, afterId, limit: plan.batchSize });
    if (!ids.length) break;
    afterId = ids.at(-1)!;
    progress.batches++;
    try {
      const r = await upsertIntegrationBatch({ organizationId, integrationId, contractIds: ids });
      progress.synced += r.synced;
      progress.failed += r.failed;
      if (r.error) progress.last_error = r.error;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const cause = err.cause instanceof ApplicationFailure ? err.cause : null;
      progress.failed += ids.length;
      progress.last_error = cause?.message ?? err.message;
      if (cause?.type && FATAL.has(cause.type)) break;
    }
    // Large organizations: a fresh history with the place and counts so far.
    if (!contractIds && workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof integrationSyncWorkflow>({ organizationId, integrationId, cursor: { afterId, progress } });
    }
  }
  await recordIntegrationSync({ organizationId, integrationId, summary: progress, full: !contractIds });
  return progress;
}
