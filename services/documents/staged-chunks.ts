/**
 * A document's chunks between extraction and indexing, staged one record per indexing batch
 * (models/document.ts, DocumentChunkBatch): what lets every ingestion step be retried alone.
 */
import { Types } from 'mongoose';
import { DocumentChunkBatch, stagedBatchId, stagedChunks, type Chunk } from '../../models/document';

/** Replaced by `_id`: a retried extraction overwrites what an earlier attempt staged. */
export async function stageChunkBatch(documentId: string, batch: number, chunks: readonly Chunk[]): Promise<void> {
  await DocumentChunkBatch.replaceOne(
    { _id: stagedBatchId(documentId, batch) },
    { _id: stagedBatchId(documentId, batch), document_id: new Types.ObjectId(documentId), chunks_json: JSON.stringify(chunks) },
    { upsert: true },
  );
}

/** Starts reading a staged batch now (a query runs only once executed), to be awaited later. */
export function readStagedChunks(documentId: string, batch: number): Promise<Chunk[]> {
  const reading = DocumentChunkBatch.findById(stagedBatchId(documentId, batch)).lean().exec().then(stagedChunks);
  // Awaited when its turn comes; if a failure ends the caller's work first, it is not a crash.
  reading.catch(() => undefined);
  return reading;
}

export async function dropStagedChunks(documentId: string): Promise<void> {
  await DocumentChunkBatch.deleteMany({ document_id: new Types.ObjectId(documentId) });
}
