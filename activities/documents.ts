/**
 * Document ingestion steps. Workflow payloads carry the document id and chunk ranges
 * only: extraction stages the chunks in MongoDB, each indexing batch reads its range from
 * there, and chunk ids are deterministic, so any step can be retried (or a killed worker
 * resumed) without duplicates.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { trusted, Types } from 'mongoose';
import type { Services } from '../lib/services';
import { whileBeating } from '../lib/heartbeat';
import { chunkId, deleteSource, embeddingText, indexChunks, refreshCollections, type Collection } from '../lib/vector-store';
import { chunkPages } from '../lib/chunking';
import { extractPages, UnreadableDocumentError, type SupportedMime } from '../lib/extraction';
import { Document, DocumentChunk, type DocumentCategory, type DocumentDoc } from '../models/document';

/** Knowledge base = policies and templates; user documents = contracts and the rest. */
export const collectionForCategory = (category: DocumentCategory): Collection =>
  category === 'policy' || category === 'template' ? 'knowledge_base' : 'user_documents';

export interface PreparedDocument {
  chunkCount: number;
  pageCount: number;
}

export function createDocumentActivities(s: Services) {
  /** Extraction and staging, heartbeating with the progress so far. */
  async function prepare(doc: DocumentDoc, documentId: string, progress: Record<string, number>): Promise<PreparedDocument> {
    let pages;
    try {
      pages = await extractPages(doc.storage_path, doc.mime_type as SupportedMime, (page, of) => Object.assign(progress, { page, of }));
    } catch (err) {
      if (err instanceof UnreadableDocumentError) throw ApplicationFailure.nonRetryable(err.message, 'UnreadableDocument');
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw ApplicationFailure.nonRetryable('the uploaded file is missing', 'MissingFile');
      throw err;
    }
    const chunks = chunkPages(pages);
    await DocumentChunk.deleteMany({ document_id: doc._id });
    for (let i = 0; i < chunks.length; i += 1000) {
      await DocumentChunk.insertMany(
        chunks.slice(i, i + 1000).map((c) => ({ _id: chunkId(documentId, c.index), document_id: doc._id, ...c })),
      );
      progress.staged = i;
    }
    return { chunkCount: chunks.length, pageCount: pages.length };
  }

  return {
    /** Extracts and chunks the file; null when the document was deleted meanwhile. */
    async extractDocument({ documentId }: { documentId: string }): Promise<PreparedDocument | null> {
      const doc = await Document.findById(documentId);
      if (!doc) return null;
      const progress: Record<string, number> = {};
      return whileBeating(() => progress, () => prepare(doc, documentId, progress));
    },

    /** Embeds chunks [from, to) and writes them to the document's collection. */
    async indexDocumentChunks({ documentId, from, to }: { documentId: string; from: number; to: number }): Promise<number> {
      const doc = await Document.findById(documentId);
      if (!doc) return 0;
      const stage = { from, to, step: 'reading' };
      return whileBeating(() => stage, async () => {
        const chunks = await DocumentChunk.find({ document_id: doc._id, index: trusted({ $gte: from, $lt: to }) }).sort({ index: 1 }).lean();
        stage.step = 'embedding';
        const vectors = await s.ai.embed(chunks.map((c) => embeddingText({ section: c.section ?? '', text: c.text })), 'document');
        stage.step = 'indexing';
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
        // Deleted while this batch ran: take back what it wrote.
        if (!(await Document.exists({ _id: doc._id }))) await deleteSource(s, doc.organization_id.toHexString(), documentId);
        return chunks.length;
      });
    },

    /** Marks the document ready (and searchable), dropping vectors an earlier, longer version left behind. */
    async finishDocument({ documentId, chunkCount, pageCount }: { documentId: string } & PreparedDocument): Promise<void> {
      await DocumentChunk.deleteMany({ document_id: new Types.ObjectId(documentId) });
      const doc = await Document.findById(documentId);
      if (!doc) return;
      await deleteSource(s, doc.organization_id.toHexString(), documentId, { fromChunk: chunkCount });
      await refreshCollections(s, [collectionForCategory(doc.category)]);
      await Document.updateOne(
        { _id: doc._id },
        { $set: { status: 'ready', chunk_count: chunkCount, page_count: pageCount, error: null, processed_at: new Date() } },
      );
    },

    async failDocument({ documentId, error }: { documentId: string; error: string }): Promise<void> {
      await DocumentChunk.deleteMany({ document_id: new Types.ObjectId(documentId) });
      await Document.updateOne({ _id: documentId }, { $set: { status: 'failed', error, chunk_count: 0, processed_at: new Date() } });
    },
  };
}

export type DocumentActivities = ReturnType<typeof createDocumentActivities>;
