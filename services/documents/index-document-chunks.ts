/**
 * The indexing step of an ingestion: a span of staged batches embedded and written to the
 * document's collection, under deterministic chunk ids, so a retried span writes nothing twice.
 */
import type { Engines } from '../../platform/engines';
import { Document, type DocumentCategory } from '../../models/document';
import { INGEST_BATCH } from '../../workflows/document-ingestion.shared';
import { chunkRecords, deleteSource, embedChunks, indexChunks, type Collection } from '../search/vector-store';
import { recordChunksDone } from './ingestion-progress';
import { readStagedChunks } from './staged-chunks';

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

export interface ChunkSpan {
  documentId: string;
  /** The first chunk, a multiple of INGEST_BATCH. */
  from: number;
  /** Staged batches in the span. */
  batches: number;
}

/**
 * Embeds the span's staged batches and writes them to the document's collection; returns
 * the chunks indexed (0 when the document is gone). A pipeline: the next batch is read while
 * one is embedded, and a batch is embedded while the bulk requests of the previous ones run,
 * so the worker's CPU and Elasticsearch's work at once. Memory is bounded by the batches in
 * flight, never by the file. `progress.batch` is the batch at work, for the caller to show.
 */
export async function indexDocumentChunks(
  s: Engines,
  { documentId, from, batches }: ChunkSpan,
  progress: { batch: number },
): Promise<number> {
  const doc = await Document.findById(documentId);
  if (!doc) return 0;
  const read = (batch: number) => readStagedChunks(documentId, from / INGEST_BATCH + batch);
  const timings = { readMs: 0, embedMs: 0, indexMs: 0 };
  const bulks = new BulkPipeline(BULKS_IN_FLIGHT, (ms) => (timings.indexMs += ms));
  let indexed = 0;
  /** Chunks whose bulk request has completed: the progress shown. */
  let written = 0;
  let next = read(0);
  for (let batch = 0; batch < batches; batch++) {
    progress.batch = batch;
    const t0 = performance.now();
    const chunks = await next;
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
}
