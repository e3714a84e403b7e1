/**
 * The ingestion batch: chunks per embedding call, bulk request and staged record. Shared
 * by the ingestion workflow (its ranges) and the ingestion steps (their staging), so it stays free
 * of I/O for the workflow bundle.
 */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const INGEST_BATCH = 100;

/**
 * Staged batches per indexing activity: fewer activities (each a schedule, a start, a
 * completion and a workflow task on the Temporal server) and a pipeline long enough to keep
 * the worker and Elasticsearch busy at once (services/documents/index-document-chunks.ts).
 */
export const INGEST_SPAN = 10;

/** A start passes the document; continuations add where they were (the workflow's own input). */
export const documentIngestion = workflowRef<[DocumentIngestionStart]>('documentIngestionWorkflow', 'document-ingestion');

/** What extraction found: the chunks staged and the pages read. */
export interface PreparedDocument {
  chunkCount: number;
  pageCount: number;
}

export interface DocumentIngestionStart {
  documentId: string;
  /** The contract's key terms are extracted by whoever ingests it (a bulk import, in batches), not at the end of the ingestion. */
  termsLater?: boolean;
}
export const ingestionWorkflowId = (documentId: string) => `ingest-${documentId}`;
