/**
 * Document ingestion steps. Workflow payloads carry the document id and chunk ranges
 * only: extraction streams the file through the chunker and stages the chunks in MongoDB
 * one record per indexing batch as they are made (memory bounded by a batch, not by the
 * file), each indexing batch reads its record by `_id`, and chunk ids are deterministic,
 * so any step can be retried (or a killed worker resumed) without duplicates.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { Types } from 'mongoose';
import type { Services } from '../platform/services';
import { whileBeating } from '../platform/temporal/heartbeat';
import { deleteSource, embeddingText, indexChunks, refreshCollections, type Collection } from '../services/search/vector-store';
import { chunkBatches, Chunker } from '../services/documents/chunking';
import { ExtractionLimitError, UnreadableDocumentError, type SupportedMime } from '../services/documents/extraction';
import { extractTextInChild } from '../services/documents/extract-text-in-child';
import { Document, DocumentChunkBatch, stagedBatchId, type DocumentCategory, type DocumentDoc } from '../models/document';
import { INGEST_BATCH } from '../workflows/document-ingestion.shared';

/** Knowledge base = policies and templates; user documents = contracts and the rest. */
export const collectionForCategory = (category: DocumentCategory): Collection =>
  category === 'policy' || category === 'template' ? 'knowledge_base' : 'user_documents';

export interface PreparedDocument {
  chunkCount: number;
  pageCount: number;
}

export function createDocumentActivities(s: Services) {
  /** Extraction, chunking and staging, a batch at a time, heartbeating with the progress so far. */
  async function prepare(doc: DocumentDoc, documentId: string, progress: Record<string, number>): Promise<PreparedDocument> {
    const chunker = new Chunker();
    const pieces = extractTextInChild(doc.storage_path, doc.mime_type as SupportedMime, s.config, (page, of) =>
      Object.assign(progress, { page, of }),
    );
    let batch = 0;
    try {
      for await (const chunks of chunkBatches(pieces, INGEST_BATCH, chunker)) {
        // Replaced by `_id`: a retried extraction overwrites what an earlier attempt staged.
        await DocumentChunkBatch.replaceOne(
          { _id: stagedBatchId(documentId, batch) },
          { _id: stagedBatchId(documentId, batch), document_id: doc._id, chunks },
          { upsert: true },
        );
        progress.staged = ++batch * INGEST_BATCH;
      }
    } catch (err) {
      if (err instanceof UnreadableDocumentError) throw ApplicationFailure.nonRetryable(err.message, 'UnreadableDocument');
      // The same file would be over the same limit on every try.
      if (err instanceof ExtractionLimitError) throw ApplicationFailure.nonRetryable(err.message, 'DocumentOverLimit');
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw ApplicationFailure.nonRetryable('the uploaded file is missing', 'MissingFile');
      throw err;
    }
    return { chunkCount: chunker.chunkCount, pageCount: chunker.pageCount };
  }

  return {
    /** Extracts and chunks the file; null when the document was deleted meanwhile. */
    async extractDocument({ documentId }: { documentId: string }): Promise<PreparedDocument | null> {
      const doc = await Document.findById(documentId);
      if (!doc) return null;
      const progress: Record<string, number> = {};
      const t0 = performance.now();
      const prepared = await whileBeating(
        () => progress,
        () => prepare(doc, documentId, progress),
      );
      // Per-step timings at debug level: what bench/ingestion.ts splits the ingestion time by.
      s.logger.debug({ documentId, ...prepared, ms: performance.now() - t0 }, 'ingestion extracted');
      return prepared;
    },

    /** Embeds the staged batch of chunks from `from` (a multiple of INGEST_BATCH) on and writes them to the document's collection. */
    async indexDocumentChunks({ documentId, from }: { documentId: string; from: number }): Promise<number> {
      const doc = await Document.findById(documentId);
      if (!doc) return 0;
      const stage = { from, step: 'reading' };
      return whileBeating(
        () => stage,
        async () => {
          const t0 = performance.now();
          const chunks = (await DocumentChunkBatch.findById(stagedBatchId(documentId, from / INGEST_BATCH)).lean())?.chunks ?? [];
          stage.step = 'embedding';
          const t1 = performance.now();
          const vectors = await s.ai.embed(
            chunks.map((c) => embeddingText({ title: doc.filename, section: c.section ?? '', text: c.text })),
            'document',
          );
          stage.step = 'indexing';
          const t2 = performance.now();
          await indexChunks(
            s,
            collectionForCategory(doc.category),
            chunks.map((c, i) => ({
              organizationId: doc.organization_id.toHexString(),
              sourceType: 'document',
              sourceId: documentId,
              title: doc.filename,
              page: c.page,
              section: c.section ?? '',
              startOffset: c.start,
              endOffset: c.end,
              text: c.text,
              chunkIndex: c.index,
              vector: vectors[i]!,
            })),
          );
          const t3 = performance.now();
          // Deleted while this batch ran: take back what it wrote.
          if (!(await Document.exists({ _id: doc._id }))) await deleteSource(s, doc.organization_id.toHexString(), documentId);
          s.logger.debug(
            {
              documentId,
              from,
              chunks: chunks.length,
              readMs: t1 - t0,
              embedMs: t2 - t1,
              indexMs: t3 - t2,
              checkMs: performance.now() - t3,
            },
            'ingestion batch indexed',
          );
          return chunks.length;
        },
      );
    },

    /** Marks the document ready (and searchable), dropping vectors an earlier, longer version left behind. */
    async finishDocument({ documentId, chunkCount, pageCount }: { documentId: string } & PreparedDocument): Promise<void> {
      const t0 = performance.now();
      await DocumentChunkBatch.deleteMany({ document_id: new Types.ObjectId(documentId) });
      const doc = await Document.findById(documentId);
      if (!doc) return;
      await deleteSource(s, doc.organization_id.toHexString(), documentId, { fromChunk: chunkCount });
      const t1 = performance.now();
      await refreshCollections(s, [collectionForCategory(doc.category)]);
      s.logger.debug({ documentId, cleanupMs: t1 - t0, refreshMs: performance.now() - t1 }, 'ingestion refreshed');
      await Document.updateOne(
        { _id: doc._id },
        { $set: { status: 'ready', chunk_count: chunkCount, page_count: pageCount, error: null, processed_at: new Date() } },
      );
    },

    async failDocument({ documentId, error }: { documentId: string; error: string }): Promise<void> {
      await DocumentChunkBatch.deleteMany({ document_id: new Types.ObjectId(documentId) });
      await Document.updateOne({ _id: documentId }, { $set: { status: 'failed', error, chunk_count: 0, processed_at: new Date() } });
    },
  };
}

export type DocumentActivities = ReturnType<typeof createDocumentActivities>;
