/**
 * CRM and storage sync steps adapted to Temporal (services/integrations/sync-contracts.ts).
 * Vendor answers become Temporal failures: rate limits retried after their Retry-After (else
 * with backoff), 401/403 and other 4xx not retried; a disconnected integration ends the run.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Services } from '../platform/services';
import { VendorError } from '../services/integrations/connector';
import {
  IntegrationGone,
  planSync,
  recordSync,
  upsertBatch,
  type IntegrationRef,
  type SyncProgress,
} from '../services/integrations/sync-contracts';

export type { SyncProgress };

/** A thrown error as the failure Temporal should act on. */
function asFailure(err: unknown): unknown {
  if (err instanceof IntegrationGone) return ApplicationFailure.nonRetryable(err.message, 'IntegrationGone');
  if (!(err instanceof VendorError)) return err;
  if (err.rateLimited) {
    return ApplicationFailure.create({ message: err.message, type: 'VendorRateLimited', nextRetryDelay: err.retryAfterMs ?? undefined });
  }
  if (err.status === 401 || err.status === 403) return ApplicationFailure.nonRetryable(err.message, 'VendorAuth');
  return err.retryable
    ? ApplicationFailure.retryable(err.message, 'VendorError')
    : ApplicationFailure.nonRetryable(err.message, 'VendorRejected');
}

const failingAs =
  <A extends unknown[], R>(step: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    step(...args).catch((err: unknown) => {
      throw asFailure(err);
    });

export function createIntegrationSyncActivities(s: Services) {
  return {
    integrationSyncPlan: failingAs(planSync),
    upsertIntegrationBatch: failingAs((input: IntegrationRef & { contractIds: string[] }) => upsertBatch(s, input)),
    recordIntegrationSync: recordSync,
  };
}

export type IntegrationSyncActivities = ReturnType<typeof createIntegrationSyncActivities>;
