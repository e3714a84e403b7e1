/**
 * The last ingestion step: the document becomes ready (and searchable), its staged chunks
 * dropped, with the vectors an earlier, longer version left behind.
 */
import type { Engines } from '../../platform/engines';
import { Document } from '../../models/document';
import type { PreparedDocument } from '../../workflows/document-ingestion.shared';
import { deleteSource, refreshCollections } from '../search/vector-store';
import { collectionForCategory } from './index-document-chunks';
import { dropStagedChunks } from './staged-chunks';

export async function finishDocument(s: Engines, documentId: string, { chunkCount, pageCount }: PreparedDocument): Promise<void> {
  const t0 = performance.now();
  await dropStagedChunks(documentId);
  const doc = await Document.findById(documentId);
  if (!doc) return;
  await deleteSource(s, doc.organization_id.toHexString(), documentId, { fromChunk: chunkCount });
  const t1 = performance.now();
  await refreshCollections(s, [collectionForCategory(doc.category)]);
  s.logger.debug({ documentId, cleanupMs: t1 - t0, refreshMs: performance.now() - t1 }, 'ingestion refreshed');
  await Document.updateOne(
    { _id: doc._id },
    {
      $set: {
        status: 'ready',
        chunk_count: chunkCount,
        page_count: pageCount,
        error: null,
        processed_at: new Date(),
        progress: { chunks_done: chunkCount, chunks_total: chunkCount },
      },
    },
  );
}
