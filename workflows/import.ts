/**
 * A bulk import (`POST /imports`), `import-<id>`: its rows a batch per activity, then, when
 * rows named files, a wait until their ingestions (each its own `ingest-<documentId>`) have
 * ended, then the key terms of the contracts with text a batch per activity. Cancelling the
 * workflow stops it between steps and records the import `cancelled`; any other failure
 * records it `failed`. Long imports continue as new with their progress.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { ImportActivities } from '../activities/imports';
import type { ImportInput, ImportProgress } from './import.shared';

/** How often the workflow looks at its files' ingestions. */
const FILES_POLL = '5 seconds';

const { importBatch, extractImportTerms } = proxyActivities<ImportActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});
const { startImportPhase, importFileProgress, finishImport } = proxyActivities<ImportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

const START: ImportProgress = {
  batch: 0,
  done: 0,
  failed: 0,
  files: 0,
  filesRejected: 0,
  inflated: 0,
  termBatches: [],
  termsTotal: 0,
  termsBatch: 0,
  termsExtracted: 0,
};

export async function bulkImportWorkflow({ importId, progress }: ImportInput): Promise<ImportProgress> {
  const p: ImportProgress = { ...START, ...progress };
  const carryOn = async () => {
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof bulkImportWorkflow>({ importId, progress: p });
  };
  try {
    for (let more = true; more;) {
      await carryOn();
      const { done, failed, files, filesRejected, inflated } = p;
      const r = await importBatch({ importId, batch: p.batch, before: { done, failed, files, filesRejected, inflated } });
      if (r.stopped) return p;
      more = r.more;
      p.done += r.done;
      p.failed += r.failed;
      p.files += r.files;
      p.filesRejected += r.filesRejected;
      p.inflated += r.inflated;
      p.termsTotal += r.withText;
      if (r.withText) p.termBatches.push(p.batch);
      p.batch++;
    }
    if (p.files > p.filesRejected && p.termsBatch === 0) {
      await startImportPhase({ importId, phase: 'files' });
      while ((await importFileProgress({ importId, filesRejected: p.filesRejected })).pending > 0) {
        await carryOn();
        await sleep(FILES_POLL);
      }
    }
    if (p.termBatches.length) {
      if (p.termsBatch === 0) await startImportPhase({ importId, phase: 'terms', termsTotal: p.termsTotal });
      for (; p.termsBatch < p.termBatches.length; p.termsBatch++) {
        await carryOn();
        const r = await extractImportTerms({ importId, batch: p.termBatches[p.termsBatch]!, before: p.termsExtracted });
        if (r.stopped) return p;
        p.termsExtracted += r.extracted;
      }
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finishImport({ importId, status: 'cancelled' }));
      throw err;
    }
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    await finishImport({ importId, status: 'failed', error: reason });
    throw ApplicationFailure.nonRetryable(`import failed: ${reason}`);
  }
  await finishImport({ importId, status: 'completed' });
  return p;
}
