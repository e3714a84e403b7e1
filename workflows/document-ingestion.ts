/**
 * Ingestion of one uploaded document: extract and chunk, then embed and index in batches,
 * then `ready` (or `failed` with the reason). Only ids and chunk ranges pass through the
 * history; long documents continue as new before the history grows large.
 */
import { ActivityFailure, continueAsNew, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { DocumentActivities } from '../activities/documents';
import { INGEST_BATCH, INGEST_SPAN, type DocumentIngestionStart, type PreparedDocument } from './document-ingestion.shared';
import type { ContractTermsActivities } from '../activities/contract-terms';

// The activities heartbeat every 5 s while they run: a worker that dies is noticed after
// the heartbeat timeout, and its step retried elsewhere, instead of after the step's whole budget.
const { extractDocument } = proxyActivities<DocumentActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});
// A span of batches takes minutes with a real model on a loaded machine; the heartbeat, not
// this budget, is what notices a dead worker.
const { indexDocumentChunks } = proxyActivities<DocumentActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});
const { finishDocument, failDocument } = proxyActivities<DocumentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10 },
});
const { refreshContractTerms } = proxyActivities<ContractTermsActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds' },
});

export interface DocumentIngestionInput extends DocumentIngestionStart {
  /** Set when continuing as new: extraction is done and batches before `from` are indexed. */
  resume?: PreparedDocument & { from: number };
}

const reason = (err: ActivityFailure) => err.cause?.message ?? err.message;

export async function documentIngestionWorkflow({
  documentId,
  termsLater,
  resume,
}: DocumentIngestionInput): Promise<'ready' | 'failed' | 'deleted'> {
  try {
    const prepared = resume ?? (await extractDocument({ documentId }));
    if (!prepared) return 'deleted';
    // patched: ingestions in flight when spans came index the rest a batch per activity, as they started.
    const spans = patched('ingestion-spans');
    const step = spans ? INGEST_BATCH * INGEST_SPAN : INGEST_BATCH;
    for (let from = resume?.from ?? 0; from < prepared.chunkCount; from += step) {
      if (workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof documentIngestionWorkflow>({ documentId, termsLater, resume: { ...prepared, from } });
      }
      if (spans)
        await indexDocumentChunks({
          documentId,
          from,
          batches: Math.min(INGEST_SPAN, Math.ceil((prepared.chunkCount - from) / INGEST_BATCH)),
        });
      else await indexDocumentChunks({ documentId, from });
    }
    await finishDocument({ documentId, chunkCount: prepared.chunkCount, pageCount: prepared.pageCount });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failDocument({ documentId, error: reason(err) });
    return 'failed';
  }
  // A contract document's terms are its contract's: extract them again. The document is
  // ready either way; a failure here is the terms' (the contract keeps its earlier ones).
  // patched: ingestions in flight when this step was added complete as they started.
  if (patched('contract-terms-after-ingestion') && !termsLater) {
    try {
      await refreshContractTerms({ documentId });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
    }
  }
  return 'ready';
}
