/**
 * The first ingestion step: the uploaded file is extracted (in a child process) and chunked
 * as a stream, and the chunks are staged a batch at a time as they are made, so memory is
 * bounded by a batch, not by the file.
 */
import type { Engines } from '../../platform/engines';
import { Document } from '../../models/document';
import { INGEST_BATCH, type PreparedDocument } from '../../workflows/document-ingestion.shared';
import { chunkBatches, Chunker } from '../search/chunking';
import type { SupportedMime } from './document-files';
import { extractTextInChild } from './extract-text-in-child';
import { recordChunkTotal } from './ingestion-progress';
import { stageChunkBatch } from './staged-chunks';

/** The uploaded file is not on disk (any more). Besides UnreadableDocumentError and ExtractionLimitError, what a retry cannot mend. */
export class MissingFileError extends Error {}

/**
 * Extracts, chunks and stages the document; null when it was deleted meanwhile. `progress`
 * is kept up to date (page, of, staged) for the caller to show.
 */
export async function stageDocumentChunks(
  s: Engines,
  documentId: string,
  progress: Record<string, number>,
): Promise<PreparedDocument | null> {
  const doc = await Document.findById(documentId);
  if (!doc) return null;
  const t0 = performance.now();
  const chunker = new Chunker();
  const pieces = extractTextInChild(doc.storage_path, doc.mime_type as SupportedMime, s.config, (page, of) =>
    Object.assign(progress, { page, of }),
  );
  let batch = 0;
  try {
    for await (const chunks of chunkBatches(pieces, INGEST_BATCH, chunker)) {
      await stageChunkBatch(documentId, batch, chunks);
      progress.staged = ++batch * INGEST_BATCH;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new MissingFileError('the uploaded file is missing');
    throw err;
  }
  const prepared = { chunkCount: chunker.chunkCount, pageCount: chunker.pageCount };
  await recordChunkTotal(documentId, prepared.chunkCount);
  // Per-step timings at debug level: what bench/ingestion.ts splits the ingestion time by.
  s.logger.debug({ documentId, ...prepared, ms: performance.now() - t0 }, 'ingestion extracted');
  return prepared;
}
