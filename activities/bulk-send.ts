/** The step of the bulk-send workflow (`bulk-send-<id>`): one batch of rows (services/templates/bulk-send-batch.ts). */
import type { Engines } from '../platform/engines';
import { whileBeating } from '../platform/temporal/heartbeat';
import { bulkSendBatch, type SendBatchInput } from '../services/templates/bulk-send-batch';

export function createBulkSendActivities(s: Engines) {
  return {
    /** Heartbeats so a dead worker's batch is retried within seconds; rows already taken on are not sent twice. */
    bulkSendBatch: (input: SendBatchInput) =>
      whileBeating(
        () => input.batch,
        () => bulkSendBatch(s, input),
      ),
  };
}

export type BulkSendActivities = ReturnType<typeof createBulkSendActivities>;
