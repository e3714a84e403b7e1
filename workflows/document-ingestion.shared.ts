/**
 * The ingestion batch: chunks per embedding call, bulk request and staged record. Shared
 * by the ingestion workflow (its ranges) and activities (their staging), so it stays free
 * of I/O for the workflow bundle.
 */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const INGEST_BATCH = 100;

/** A start passes the document; continuations add where they were (the workflow's own input). */
export const documentIngestion = workflowRef<[{ documentId: string }]>('documentIngestionWorkflow', 'document-ingestion');
