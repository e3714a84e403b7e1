/**
 * Ingestion progress on the document record, which `GET /documents/:id` shows while a long
 * file is ingested: the total once extraction has counted the chunks, then the chunks
 * indexed so far. Only ever raised: a retried span does not take back what was shown.
 */
import { Document } from '../../models/document';

export async function recordChunkTotal(documentId: string, total: number): Promise<void> {
  await Document.updateOne({ _id: documentId }, { $set: { 'progress.chunks_total': total } });
}

export async function recordChunksDone(documentId: string, done: number): Promise<void> {
  await Document.updateOne({ _id: documentId }, { $max: { 'progress.chunks_done': done } });
}
