/**
 * Document ingestion steps. Workflow payloads carry the document id and chunk ranges
 * only: extraction streams the file through the chunker and stages the chunks in MongoDB
 * one record per indexing batch as they are made (memory bounded by a batch, not by the
 * file), each indexing batch reads its record by `_id`, and chunk ids are deterministic,
 * so any step can be retried (or a killed worker resumed) without duplicates.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { Types } from 'mongoose';
import type { Services } from '../platform/engines';
import { whileBeating } from '../platform/temporal/heartbeat';
import { chunkRecords, deleteSource, embedChunks, indexChunks, refreshCollections, type Collection } from '../services/search/vector-store';
import { chunkBatches, Chunker } from '../services/documents/chunking';
import { ExtractionLimitError, UnreadableDocumentError, type SupportedMime } from '../services/documents/extraction';
import { extractTextInChild } from '../services/documents/extract-text-in-child';
import { recordChunksDone, recordChunkTotal } from '../services/documents/ingestion-progress';
import { Document, DocumentChunkBatch, stagedBatchId, stagedChunks, type DocumentCategory, type DocumentDoc } from '../models/document';
import { INGEST_BATCH } from '../workflows/document-ingestion.shared';

/** Knowledge base = policies and templates; user documents = contracts and the rest. */
export const collectionForCategory = (category: DocumentCategory): Collection =>
  category === 'policy' || category === 'template' ? 'knowledge_base' : 'user_documents';

/**
 * Bulk requests a span keeps running at once: while one batch's request is indexed, the
 * next batch is embedded and sent, so the worker and Elasticsearch (one write thread per
 * request) work in parallel.
 */
const BULKS_IN_FLIGHT = 2;

/** Runs at most `limit` requests at once; `add` waits for a free place, `drain` for all, and either throws the first failure. */
class BulkPipeline {
  private running = new Set<Promise<void>>();
  private failure: Error | undefined;

  constructor(
    private readonly limit: number,
    private readonly onDone: (ms: number) => void,
  ) {}

  async add(request: () => Promise<void>): Promise<void> {
    while (this.running.size >= this.limit) await Promise.race(this.running);
    this.check();
    const t0 = performance.now();
    const p: Promise<void> = request()
      .then(
        () => this.onDone(performance.now() - t0),
        (err: unknown) => void (this.failure ??= err instanceof Error ? err : new Error(String(err))),
      )
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }

  async drain(): Promise<void> {
    await Promise.all(this.running);
    this.check();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}

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
          { _id: stagedBatchId(documentId, batch), document_id: doc._id, chunks_json: JSON.stringify(chunks) },
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
      await recordChunkTotal(documentId, prepared.chunkCount);
      // Per-step timings at debug level: what bench/ingestion.ts splits the ingestion time by.
      s.logger.debug({ documentId, ...prepared, ms: performance.now() - t0 }, 'ingestion extracted');
      return prepared;
    },

    /**
     * Embeds the `batches` staged batches of chunks from `from` (a multiple of INGEST_BATCH)
     * on and writes them to the document's collection (one batch when not given: the calls
     * of ingestions started before spans). A pipeline: the next batch is read while one is
     * embedded, and a batch is embedded while the bulk requests of the previous ones run, so
     * the worker's CPU and Elasticsearch's work at once. Memory is bounded by the batches in
     * flight, never by the file.
     */
    async indexDocumentChunks({ documentId, from, batches = 1 }: { documentId: string; from: number; batches?: number }): Promise<number> {
      const doc = await Document.findById(documentId);
      if (!doc) return 0;
      const stage = { from, batch: 0 };
      /** Starts reading a staged batch now (a query runs only once executed), to be awaited later. */
      const read = (batch: number) => {
        const reading = DocumentChunkBatch.findById(stagedBatchId(documentId, from / INGEST_BATCH + batch))
          .lean()
          .exec();
        // Awaited when its turn comes; if a failure ends the span first, it is not a crash.
        reading.catch(() => undefined);
        return reading;
      };
      return whileBeating(
        () => stage,
        async () => {
          const timings = { readMs: 0, embedMs: 0, indexMs: 0 };
          const bulks = new BulkPipeline(BULKS_IN_FLIGHT, (ms) => (timings.indexMs += ms));
          let indexed = 0;
          /** Chunks whose bulk request has completed: the progress shown. */
          let written = 0;
          let next = read(0);
          for (let batch = 0; batch < batches; batch++) {
            stage.batch = batch;
            const t0 = performance.now();
            const chunks = stagedChunks(await next);
            if (batch + 1 < batches) next = read(batch + 1);
            const t1 = performance.now();
            const vectors = await embedChunks(
              s.ai,
              chunks.map((c) => ({ title: doc.filename, section: c.section ?? '', text: c.text })),
            );
            timings.readMs += t1 - t0;
            timings.embedMs += performance.now() - t1;
            await bulks.add(async () => {
              await indexChunks(
                s,
                collectionForCategory(doc.category),
                chunkRecords(
                  { organizationId: doc.organization_id.toHexString(), sourceType: 'document', sourceId: documentId, title: doc.filename },
                  chunks,
                  vectors,
                ),
              );
              written += chunks.length;
              await recordChunksDone(documentId, from + written);
            });
            indexed += chunks.length;
          }
          const t0 = performance.now();
          await bulks.drain();
          const t1 = performance.now();
          // Deleted while this span ran: take back what it wrote.
          if (!(await Document.exists({ _id: doc._id }))) await deleteSource(s, doc.organization_id.toHexString(), documentId);
          // Per-step timings at debug level: what bench/ingestion.ts splits the ingestion time by.
          s.logger.debug(
            { documentId, from, batches, chunks: indexed, ...timings, drainMs: t1 - t0, checkMs: performance.now() - t1 },
            'ingestion batch indexed',
          );
          return indexed;
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
    },

    async failDocument({ documentId, error }: { documentId: string; error: string }): Promise<void> {
      await DocumentChunkBatch.deleteMany({ document_id: new Types.ObjectId(documentId) });
      await Document.updateOne({ _id: documentId }, { $set: { status: 'failed', error, chunk_count: 0, processed_at: new Date() } });
    },
  };
}

export type DocumentActivities = ReturnType<typeof createDocumentActivities>;
