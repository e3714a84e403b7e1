/**
 * A bulk send from a template (`POST /templates/:id/bulk-send`), `bulk-send-<id>`: its rows a
 * batch per activity (each row drafted, then sent for signature), then the end recorded as an
 * import's is (finishImport). Cancelling stops it between batches and records it `cancelled`;
 * any other failure records it `failed`. Long runs continue as new with their progress.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { BulkSendActivities } from '../activities/bulk-send';
import type { ImportActivities } from '../activities/imports';
import type { BulkSendInput, BulkSendProgress } from './bulk-send.shared';

const { bulkSendBatch } = proxyActivities<BulkSendActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});
const { finishImport } = proxyActivities<ImportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

const START: BulkSendProgress = { batch: 0, done: 0, failed: 0, sent: 0, awaitingApproval: 0 };

export async function bulkSendWorkflow({ importId, progress }: BulkSendInput): Promise<BulkSendProgress> {
  const p: BulkSendProgress = { ...START, ...progress };
  try {
    for (let more = true; more;) {
      if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof bulkSendWorkflow>({ importId, progress: p });
      const { done, failed, sent, awaitingApproval } = p;
      const r = await bulkSendBatch({ importId, batch: p.batch, before: { done, failed, sent, awaitingApproval } });
      if (r.stopped) return p;
      more = r.more;
      p.done += r.done;
      p.failed += r.failed;
      p.sent += r.sent;
      p.awaitingApproval += r.awaitingApproval;
      p.batch++;
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finishImport({ importId, status: 'cancelled' }));
      throw err;
    }
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    await finishImport({ importId, status: 'failed', error: reason });
    throw ApplicationFailure.nonRetryable(`bulk send failed: ${reason}`);
  }
  await finishImport({ importId, status: 'completed' });
  return p;
}
