/** An ingestion that gave up: the document shows why, and its staged chunks are dropped. */
import { Document } from '../../models/document';
import { dropStagedChunks } from './staged-chunks';

export async function failDocument(documentId: string, error: string): Promise<void> {
  await dropStagedChunks(documentId);
  await Document.updateOne({ _id: documentId }, { $set: { status: 'failed', error, chunk_count: 0, processed_at: new Date() } });
}
