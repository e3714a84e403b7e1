/**
 * The ingestion batch: chunks per embedding call, bulk request and staged record. Shared
 * by the ingestion workflow (its ranges) and activities (their staging), so it stays free
 * of I/O for the workflow bundle.
 */
export const INGEST_BATCH = 100;
