/**
 * `POST /compliance/scan`: checks every contract in the scan's scope against the rule set
 * (and the AI's flags), a page of contracts at a time, creating deduplicated tasks and
 * `compliance.alert` events; the scan record shows progress and the outcome. Large
 * organizations continue as new with their cursor.
 */
import { ApplicationFailure, ContinueAsNew, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ComplianceActivities } from '../activities/compliance';

export const SCAN_BATCH = 25;

const { finishScan } = proxyActivities<ComplianceActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});
const { scanBatch } = proxyActivities<ComplianceActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

export interface ComplianceScanInput {
  scanId: string;
  /** Carried across continue-as-new. */
  cursor?: { afterId: string; scanned: number };
}

export async function complianceScanWorkflow({ scanId, cursor }: ComplianceScanInput): Promise<{ contracts_scanned: number }> {
  let afterId: string | null = cursor?.afterId ?? null;
  let scanned = cursor?.scanned ?? 0;
  try {
    for (;;) {
      const batch = await scanBatch({ scanId, afterId, scannedBefore: scanned, limit: SCAN_BATCH });
      ({ afterId, scanned } = batch);
      if (batch.done) break;
      if (workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof complianceScanWorkflow>({ scanId, cursor: { afterId: afterId!, scanned } });
      }
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    await finishScan({ scanId, error: reason });
    throw ApplicationFailure.nonRetryable(`compliance scan failed: ${reason}`);
  }
  await finishScan({ scanId });
  return { contracts_scanned: scanned };
}
