/** Chunks another embedding model made, re-embedded in place with the process's model. */
import type { AiPort } from '../../../platform/ai/port';
import { COLLECTIONS, ensureCollections, indexName, modelOf, type StoredChunk, type VectorStore } from './collections';
import { embeddingText, keywordTerms } from './chunk-text';
import { embedChunks } from './embed-chunks';
import { checkBulk } from './failures';
import { withVector } from './vector-json';

/**
 * Re-embeds up to `limit` chunks whose vector another embedding model made (or that
 * predate the model field) with the process's model, in place. A chunk changed or deleted
 * since it was read is left alone (optimistic concurrency): whoever changed it wrote the
 * current model's vector, and a deleted chunk stays deleted. Returns how many were read.
 */
export async function reembedStaleChunks(store: VectorStore & { ai: AiPort }, limit: number): Promise<number> {
  await ensureCollections(store);
  const index = COLLECTIONS.map((c) => indexName(store, c));
  const page = await store.es.search<StoredChunk>({
    index,
    size: limit,
    query: { bool: { must_not: { term: { embedding_model: modelOf(store) } } } },
    seq_no_primary_term: true,
    _source: { excludes: ['embedding', 'terms', 'sentences'] },
  });
  const hits = page.hits.hits.filter((h) => h._source);
  if (!hits.length) return 0;
  const vectors = await embedChunks(
    store.ai,
    hits.map((h) => h._source!),
  );
  const res = await store.es.bulk({
    operations: hits.flatMap((h, i) => [
      { index: { _index: h._index, _id: h._id!, if_seq_no: h._seq_no!, if_primary_term: h._primary_term! } },
      withVector(
        { ...h._source!, terms: keywordTerms(embeddingText(h._source!)), embedding_model: modelOf(store) },
        vectors[i]!.vector,
        vectors[i]!.sentences,
      ),
    ]),
    refresh: true,
  });
  checkBulk(res, 're-embedding', 'version_conflict_engine_exception');
  return hits.length;
}
