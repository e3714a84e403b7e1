/** Writing chunks: records with their vectors, indexed under `<sourceId>:<chunkIndex>`. */
import type { EmbeddedSentence } from './embed-chunks';
import { ensureCollections, indexName, modelOf, type Collection, type VectorStore } from './collections';
import { embeddingText, keywordTerms } from './chunk-text';
import { checkBulk } from './failures';
import { withVector } from './vector-json';

export interface ChunkRecord {
  organizationId: string;
  sourceType: 'contract' | 'document';
  sourceId: string;
  title: string;
  page: number;
  section: string;
  startOffset: number;
  endOffset: number;
  text: string;
  chunkIndex: number;
  vector: number[];
  /** One vector per sentence of the chunk (`sentencesOf`), for the sentence kNN. */
  sentences?: EmbeddedSentence[];
}

/** One source's chunks as stored records, with their vectors from `embedChunks` (same order). */
export function chunkRecords(
  source: Pick<ChunkRecord, 'organizationId' | 'sourceType' | 'sourceId' | 'title'>,
  chunks: ReadonlyArray<{ index: number; page: number; section?: string; start: number; end: number; text: string }>,
  vectors: ReadonlyArray<{ vector: number[]; sentences: EmbeddedSentence[] }>,
): ChunkRecord[] {
  return chunks.map((c, i) => ({
    ...source,
    page: c.page,
    section: c.section ?? '',
    startOffset: c.start,
    endOffset: c.end,
    text: c.text,
    chunkIndex: c.index,
    vector: vectors[i]!.vector,
    sentences: vectors[i]!.sentences,
  }));
}

export const chunkId = (sourceId: string, chunkIndex: number) => `${sourceId}:${chunkIndex}`;

/**
 * Writes chunks (overwriting same-id chunks). They become searchable at the next refresh:
 * callers refresh once after their last batch (`refreshCollections`), since waiting for a
 * refresh per batch costs about a second each.
 */
export async function indexChunks(store: VectorStore, collection: Collection, chunks: readonly ChunkRecord[]): Promise<void> {
  if (!chunks.length) return;
  await ensureCollections(store);
  const index = indexName(store, collection);
  const indexedAt = new Date().toISOString();
  const operations = chunks.flatMap((c) => [
    { index: { _index: index, _id: chunkId(c.sourceId, c.chunkIndex) } },
    withVector(
      {
        organization_id: c.organizationId,
        source_type: c.sourceType,
        source_id: c.sourceId,
        title: c.title,
        page: c.page,
        section: c.section,
        start_offset: c.startOffset,
        end_offset: c.endOffset,
        text: c.text,
        chunk_index: c.chunkIndex,
        indexed_at: indexedAt,
        terms: keywordTerms(embeddingText(c)),
        embedding_model: modelOf(store),
      },
      c.vector,
      c.sentences,
    ),
  ]);
  checkBulk(await store.es.bulk({ operations }), 'bulk indexing');
}
