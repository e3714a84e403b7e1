/** Hybrid kNN and keyword search over the collections, and the stored sentence vectors of hits. */
import type { estypes } from '@elastic/elasticsearch';
import {
  COLLECTIONS,
  collectionOf,
  ensureCollections,
  indexName,
  modelOf,
  type Collection,
  type StoredChunk,
  type VectorStore,
} from './collections';
import { keywordTerms } from './chunk-text';
import { embedsSentences } from './embed-chunks';
import { chunkId, type ChunkRecord } from './write-chunks';

/** The relevance floor, as raw cosine similarity (not ES's `_score` of (1 + cos) / 2). */
export const MIN_RELEVANCE = 0.35;

/** A stored chunk as search returns it: no vector, the organization is the caller's. */
export interface SearchHit extends Omit<ChunkRecord, 'organizationId' | 'sourceType' | 'vector'> {
  collection: Collection;
  sourceType: string;
  /** Cosine similarity in [-1, 1]. */
  relevance: number;
  /** Rank fusion score of the vector and the keyword ranking: the order of the hits. */
  score: number;
}

export interface SearchOptions {
  /** Hits taken from each ranking, and returned at most. */
  k: number;
  /** Raw cosine floor: a hit below it is no hit, however well its words match. */
  minRelevance: number;
}

/** How the vector and the keyword rankings make one order (`fuseCandidates`). */
export interface Fusion {
  /** Reciprocal rank fusion constant (Cormack et al. 2009): damps the weight of the very first ranks. */
  rrfK: number;
  /** Weight of the keyword (BM25) ranking's reciprocal rank; the vector ranking's is 1. */
  keywordWeight: number;
  /** A chunk's vector score: (1 − w) × its own cosine + w × its relevance (the better of that and its best sentence's). */
  sentenceWeight: number;
}

/**
 * The fusion in use, fitted on the tuning questions only (eval/fit-retrieval.ts, all-MiniLM-L6-v2):
 * the keyword ranking at a quarter of the vector ranking's weight (recall@5 0.909 → 0.939 on
 * them, against 1, the weight before); k 60 and the mean of the two cosines stayed the best.
 */
export const FUSION: Fusion = { rrfK: 60, keywordWeight: 0.25, sentenceWeight: 0.5 };

type RankedHit = estypes.SearchHit<StoredChunk>;

function toHit(store: VectorStore, h: RankedHit, relevance: number, score: number): SearchHit[] {
  const c = h._source;
  if (!c) return [];
  return [
    {
      collection: collectionOf(store, h._index),
      sourceType: c.source_type,
      sourceId: c.source_id,
      title: c.title,
      page: c.page,
      section: c.section,
      startOffset: c.start_offset,
      endOffset: c.end_offset,
      text: c.text,
      chunkIndex: c.chunk_index,
      relevance,
      score,
    },
  ];
}

const SOURCE_EXCLUDES = ['embedding', 'terms', 'sentences'];
/**
 * The best 3 × k by quantized score are scored again with the float vectors: the cosines
 * returned, and the floor applied to them, are exact (int8 scores were off by up to 0.03).
 */
const RESCORE = { oversample: 3 };
/** For cosine, Elasticsearch's _score is (1 + cos) / 2. */
const cosineOf = (h: RankedHit) => 2 * (h._score ?? 0) - 1;
const keyOf = (h: RankedHit) => `${h._index}/${h._id}`;

/**
 * Hybrid search over the three collections, restricted to one organization and to chunks
 * of the process's embedding model. Two kNN queries, one on the chunk vectors and one on
 * the sentence vectors (a chunk scores as its best sentence), make the vector ranking; a
 * BM25 query on the chunk's words (`terms`) makes the keyword ranking; the two are fused by
 * reciprocal rank (plain queries, so it runs on Elasticsearch's free tier, which has no
 * built-in RRF). A chunk's relevance is the better of its own cosine and its best
 * sentence's; it ranks by the mean of its own cosine and that relevance, so one apt
 * sentence lifts a chunk without letting chunks of many short sentences crowd out the
 * rest. Only chunks whose relevance reaches `minRelevance` are returned: keywords promote a
 * relevant chunk but never admit an unrelated one. Best first.
 */
export async function searchChunks(
  store: VectorStore,
  organizationId: string,
  query: { text: string; vector: number[] },
  opts: SearchOptions,
): Promise<SearchHit[]> {
  return fuseCandidates(store, await searchCandidates(store, organizationId, query, opts), opts);
}

/** What the three searches found, before fusion: each hit once, with its cosines and its keyword rank. */
export interface Candidates {
  hits: Map<string, RankedHit>;
  chunkCos: Map<string, number>;
  sentenceCos: Map<string, number>;
  /** Keys found by either kNN. */
  byVector: string[];
  /** Keys in BM25 order. */
  byKeyword: string[];
}

/** The searches of `searchChunks`, apart from the fusion, so that fusions can be compared on one set of results (eval/fit-retrieval.ts). */
export async function searchCandidates(
  store: VectorStore,
  organizationId: string,
  query: { text: string; vector: number[] },
  opts: SearchOptions,
): Promise<Candidates> {
  await ensureCollections(store);
  const index = COLLECTIONS.map((c) => indexName(store, c));
  const filter: estypes.QueryDslQueryContainer[] = [
    { term: { organization_id: organizationId } },
    { term: { embedding_model: modelOf(store) } },
  ];
  // Restricted to `ids`, the kNN is exact (the filter leaves fewer chunks than candidates;
  // no scripting, which minimal distributions lack).
  const knn = (field: 'embedding' | 'sentences.embedding', k: number, ids?: string[]) =>
    store.es.search<StoredChunk>({
      index,
      size: k,
      knn: {
        field,
        query_vector: query.vector,
        k,
        num_candidates: ids ? Math.max(k, 10) : Math.max(100, k * 4),
        filter: ids ? [...filter, { ids: { values: ids } }] : filter,
        rescore_vector: RESCORE,
      },
      _source: ids ? false : { excludes: SOURCE_EXCLUDES },
    });
  const fields = embedsSentences(store.ai) ? (['embedding', 'sentences.embedding'] as const) : (['embedding'] as const);
  const [byChunk, bySentence, bm25] = await Promise.all([
    knn('embedding', opts.k),
    fields.length > 1 ? knn('sentences.embedding', opts.k) : undefined,
    store.es.search<StoredChunk>({
      index,
      size: opts.k,
      query: { bool: { filter, must: { match: { terms: keywordTerms(query.text) } } } },
      _source: { excludes: SOURCE_EXCLUDES },
    }),
  ]);

  const candidates = new Map<string, RankedHit>();
  const sentenceHits = bySentence?.hits.hits ?? [];
  for (const h of [...byChunk.hits.hits, ...sentenceHits, ...bm25.hits.hits]) if (!candidates.has(keyOf(h))) candidates.set(keyOf(h), h);
  const chunkCos = new Map(byChunk.hits.hits.map((h) => [keyOf(h), cosineOf(h)]));
  const sentenceCos = new Map(sentenceHits.map((h) => [keyOf(h), cosineOf(h)]));
  // The cosines each ranking left unknown.
  await Promise.all(
    fields.map(async (field) => {
      const known = field === 'embedding' ? chunkCos : sentenceCos;
      const ids = [...candidates.values()].filter((h) => !known.has(keyOf(h))).map((h) => h._id!);
      if (!ids.length) return;
      for (const h of (await knn(field, ids.length, ids)).hits.hits) known.set(keyOf(h), cosineOf(h));
    }),
  );
  return {
    hits: candidates,
    chunkCos,
    sentenceCos,
    byVector: [...new Set([...byChunk.hits.hits, ...sentenceHits].map(keyOf))],
    byKeyword: bm25.hits.hits.map(keyOf),
  };
}

/** The candidates in one order, by reciprocal rank fusion of the vector and the keyword rankings, those under the floor left out. */
export function fuseCandidates(store: VectorStore, c: Candidates, opts: SearchOptions, fusion: Fusion = FUSION): SearchHit[] {
  const relevance = (key: string) => Math.max(c.chunkCos.get(key) ?? -1, c.sentenceCos.get(key) ?? -1);
  const vectorScore = (key: string) => (1 - fusion.sentenceWeight) * (c.chunkCos.get(key) ?? -1) + fusion.sentenceWeight * relevance(key);
  const vectorRanking = [...c.byVector].sort((x, y) => vectorScore(y) - vectorScore(x));
  const fused = new Map<string, number>();
  const rankings: Array<[string[], number]> = [
    [vectorRanking, 1],
    [c.byKeyword, fusion.keywordWeight],
  ];
  for (const [ranking, weight] of rankings) {
    ranking.forEach((key, rank) => fused.set(key, (fused.get(key) ?? 0) + weight / (fusion.rrfK + rank + 1)));
  }
  return [...fused.entries()]
    .filter(([key]) => relevance(key) >= opts.minRelevance)
    .sort((x, y) => y[1] - x[1])
    .slice(0, opts.k)
    .flatMap(([key, score]) => toHit(store, c.hits.get(key)!, relevance(key), score));
}

/**
 * The sentence vectors stored with `chunks`, keyed by the text each was embedded from. Only
 * the process's model's: a chunk re-embedded by another model since it was found gives none,
 * and so does one stored before sentence texts were (it gains them when re-indexed).
 */
export async function storedSentenceVectors(
  store: VectorStore,
  chunks: ReadonlyArray<Pick<SearchHit, 'collection' | 'sourceId' | 'chunkIndex'>>,
): Promise<Map<string, number[]>> {
  const vectors = new Map<string, number[]>();
  if (!chunks.length || !embedsSentences(store.ai)) return vectors;
  // The whole _source, as stored: filtering it would make Elasticsearch parse and write out
  // again every vector, about four times the time of sending the chunk's other fields too.
  const res = await store.es.mget<StoredChunk & { sentences?: Array<{ text?: string; embedding: number[] }> }>({
    docs: chunks.map((c) => ({ _index: indexName(store, c.collection), _id: chunkId(c.sourceId, c.chunkIndex) })),
  });
  for (const doc of res.docs) {
    const source = 'found' in doc && doc.found ? doc._source : undefined;
    if (source?.embedding_model !== modelOf(store)) continue;
    for (const s of source.sentences ?? []) if (s.text !== undefined) vectors.set(s.text, s.embedding);
  }
  return vectors;
}
