/**
 * The three RAG collections on Elasticsearch: `contracts_kb` (contract texts),
 * `knowledge_base` (policy and template uploads) and `user_documents` (contract and other
 * uploads). Every chunk carries its organization, and every search filters on it inside
 * the kNN clause (a post-filter would leak neighbours' slots and return fewer hits).
 * Chunk ids are `<sourceId>:<chunkIndex>`, so indexing a source again overwrites it.
 * Every chunk records the embedding model that made its vector, and every search filters
 * on the process's model: vectors of two models are never compared (a changed model
 * re-embeds the stored chunks through `reembedWorkflow`).
 * Besides its own vector, a chunk keeps one per sentence (nested, same model and dimension,
 * with the text embedded): a clause of many sentences is found by the one that answers, which
 * the average meaning of the whole chunk can bury.
 */
import { errors, type Client } from '@elastic/elasticsearch';
import type { estypes } from '@elastic/elasticsearch';
import { EMBEDDING_DIM, type AiPort } from '../../platform/ai/port';
import type { Config } from '../../platform/config';
import { HASHING_MODEL, normalize, stem, words } from '../../platform/ai/embeddings';

export const COLLECTIONS = ['contracts_kb', 'knowledge_base', 'user_documents'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** The relevance floor, as raw cosine similarity (not ES's `_score` of (1 + cos) / 2). */
export const MIN_RELEVANCE = 0.35;

export interface VectorStore {
  es: Client;
  config: Pick<Config, 'ELASTICSEARCH_INDEX_PREFIX'>;
  /** Its embedding model names the vectors this process writes and searches. */
  ai: Pick<AiPort, 'models'>;
}

const modelOf = (store: VectorStore) => store.ai.models.embedding;

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

/** A sentence's vector and the text it was embedded from (`sentenceEmbeddingText`). */
export interface EmbeddedSentence {
  text: string;
  vector: number[];
}

/** A stored chunk as search returns it: no vector, the organization is the caller's. */
export interface SearchHit extends Omit<ChunkRecord, 'organizationId' | 'sourceType' | 'vector'> {
  collection: Collection;
  sourceType: string;
  /** Cosine similarity in [-1, 1]. */
  relevance: number;
  /** Rank fusion score of the vector and the keyword ranking: the order of the hits. */
  score: number;
}

interface StoredChunk {
  organization_id: string;
  source_type: string;
  source_id: string;
  title: string;
  page: number;
  section: string;
  start_offset: number;
  end_offset: number;
  text: string;
  chunk_index: number;
  indexed_at: string;
  embedding_model?: string;
}

export const indexName = (store: VectorStore, c: Collection) => `${store.config.ELASTICSEARCH_INDEX_PREFIX}${c}`;
/**
 * The generation of the mapping. A collection's name is an alias of its index of the current
 * generation: a mapping an existing field cannot be changed to (int8_hnsw to int8_flat) gets
 * an index of a new generation, which `upgradeCollections` copies the old one into.
 */
const GENERATION = 2;
const currentIndex = (store: VectorStore, c: Collection) => `${indexName(store, c)}-v${GENERATION}`;

/** The collection of a hit's index: the current generation's, or one an earlier version made. */
const collectionOf = (store: VectorStore, index: string): Collection =>
  COLLECTIONS.find((c) => index === currentIndex(store, c) || index === indexName(store, c)) ?? 'user_documents';

const vectorField = (type: estypes.MappingDenseVectorIndexOptionsType): estypes.MappingDenseVectorProperty => ({
  type: 'dense_vector',
  dims: EMBEDDING_DIM,
  index: true,
  similarity: 'cosine',
  index_options: { type },
});

const MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    organization_id: { type: 'keyword' },
    source_type: { type: 'keyword' },
    source_id: { type: 'keyword' },
    title: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 512 } } },
    page: { type: 'integer' },
    section: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 512 } } },
    start_offset: { type: 'integer' },
    end_offset: { type: 'integer' },
    text: { type: 'text' },
    // The chunk's section and text as stemmed words without stop words, for the keyword
    // ranking. Analysed here, not by Elasticsearch: the language analyzers live in a module
    // (analysis-common) that minimal distributions lack.
    terms: { type: 'text', analyzer: 'whitespace' },
    chunk_index: { type: 'integer' },
    indexed_at: { type: 'date' },
    embedding_model: { type: 'keyword' },
    // Quantized to int8 and searched without a graph: a kNN scans the vectors its filter (one
    // organization, one model) leaves, then rescores the best with the floats (`RESCORE`).
    // Building the HNSW graph (int8_hnsw before) cost Elasticsearch 1.85 ms of CPU per chunk on
    // this machine, merges included, and bounded large ingests; this costs 0.37 ms. A scan costs
    // about 3 µs per chunk of the organization: 30 ms at 10,000, as fast as the graph there, 270
    // ms at 70,000 on JDK 17. Binary quantization (bbq_*) lost half the exact top 40 even with
    // rescoring (bench/README.md, issue 21).
    embedding: vectorField('int8_flat'),
    // A kNN on this nested field scores a chunk by its best sentence. Sentence vectors keep their
    // graph: a chunk has about seven, which a scan would visit at query time, and only the
    // embedding model makes them, whose embedding, not the graph, bounds those ingests.
    sentences: {
      type: 'nested',
      properties: {
        embedding: vectorField('int8_hnsw'),
        // What was embedded, in _source only: the answerer reuses the vector where it ranks the same text.
        text: { type: 'keyword', index: false, doc_values: false },
      },
    },
  },
};

const INDEX_SETTINGS: estypes.IndicesIndexSettings = { number_of_shards: 1, auto_expand_replicas: '0-1' };

const errorType = (err: unknown) =>
  err instanceof errors.ResponseError ? (err.body as { error?: { type?: string } } | undefined)?.error?.type : undefined;
const ignoreExisting = (err: unknown) => {
  if (errorType(err) !== 'resource_already_exists_exception') throw err;
};

const ensured = new WeakMap<Client, Map<string, Promise<void>>>();

/** Creates the three collections if missing; safe to call concurrently and repeatedly. */
export function ensureCollections(store: VectorStore): Promise<void> {
  let byPrefix = ensured.get(store.es);
  if (!byPrefix) ensured.set(store.es, (byPrefix = new Map<string, Promise<void>>()));
  const prefix = store.config.ELASTICSEARCH_INDEX_PREFIX;
  let pending = byPrefix.get(prefix);
  if (!pending) {
    pending = Promise.all(COLLECTIONS.map((c) => createCollection(store, c))).then(() => undefined);
    // A failure (cluster down) is not remembered: the next call tries again.
    pending.catch(() => byPrefix.delete(prefix));
    byPrefix.set(prefix, pending);
  }
  return pending;
}

async function createCollection(store: VectorStore, c: Collection): Promise<void> {
  const name = indexName(store, c);
  try {
    await store.es.indices.create({
      index: currentIndex(store, c),
      aliases: { [name]: { is_write_index: true } },
      settings: INDEX_SETTINGS,
      mappings: MAPPINGS,
    });
  } catch (err) {
    // Made before, or an index an earlier version made holds the name: it serves until
    // `upgradeCollections` moves it.
    if (!['resource_already_exists_exception', 'invalid_alias_name_exception'].includes(errorType(err) ?? '')) throw err;
    // It gets the fields added since, also inside `sentences` (a field put as it is changes
    // nothing); its chunks gain them when re-embedded. Its chunk vector keeps its own index
    // options, which cannot change.
    const [mapping] = Object.values(await store.es.indices.getMapping({ index: name }));
    const embedding = mapping?.mappings.properties?.embedding;
    await store.es.indices.putMapping({ index: name, properties: { ...MAPPINGS.properties, ...(embedding && { embedding }) } });
  }
}

/** Chunks per page when a collection is copied into a new index (up to 8 vectors each). */
const COPY_PAGE = 200;

/**
 * Moves every collection still in an index of an earlier generation into one of this
 * generation, and returns those it moved. The old index refuses writes meanwhile (indexing
 * activities fail and retry; a deletion through the API answers 503) while its chunks are
 * copied as stored, vectors included (no re-embedding); then, in one atomic step, the name
 * moves to the new index and the old one is removed. Searches read the old index until then.
 * Run by the worker at start; running it again, or in two processes at once, is harmless.
 */
export async function upgradeCollections(store: VectorStore): Promise<Collection[]> {
  await ensureCollections(store);
  const moved: Collection[] = [];
  for (const c of COLLECTIONS) {
    const name = indexName(store, c);
    const target = currentIndex(store, c);
    const [old] = Object.keys(await store.es.indices.get({ index: name, features: 'aliases' })).filter((i) => i !== target);
    if (!old) continue;
    await store.es.indices.create({ index: target, settings: INDEX_SETTINGS, mappings: MAPPINGS }).catch(ignoreExisting);
    await store.es.indices.putSettings({ index: old, settings: { 'index.blocks.write': true } });
    try {
      await copyChunks(store, old, target);
      // Searchable from the moment the name moves.
      await store.es.indices.refresh({ index: target });
      await store.es.indices.updateAliases({
        actions: [{ add: { index: target, alias: name, is_write_index: true } }, { remove_index: { index: old } }],
      });
    } catch (err) {
      await store.es.indices.putSettings({ index: old, settings: { 'index.blocks.write': false } }).catch(() => undefined);
      throw err;
    }
    moved.push(c);
  }
  return moved;
}

/** Copies every chunk of one index into another as stored (same id and source), a page at a time. */
async function copyChunks(store: VectorStore, from: string, to: string): Promise<void> {
  let page = await store.es.search<object>({ index: from, scroll: '2m', size: COPY_PAGE, sort: ['_doc'] });
  try {
    while (page.hits.hits.length) {
      checkBulk(
        await store.es.bulk({ operations: page.hits.hits.flatMap((h) => [{ index: { _index: to, _id: h._id! } }, h._source!]) }),
        'copy',
      );
      page = await store.es.scroll<object>({ scroll_id: page._scroll_id!, scroll: '2m' });
    }
  } finally {
    if (page._scroll_id) await store.es.clearScroll({ scroll_id: page._scroll_id }).catch(() => undefined);
  }
}

/** Writes refused while a collection moves to a new index (`upgradeCollections`): a short outage. */
class VectorStoreBlocked extends Error {}

/** Throws the first failed item of a bulk request, if any. */
function checkBulk(res: estypes.BulkResponse, what: string, ignore?: string): void {
  if (!res.errors) return;
  const failed = res.items.map((i) => Object.values(i)[0]?.error).find((e) => e && e.type !== ignore);
  if (!failed) return;
  const message = `${what} failed: ${failed.type}: ${failed.reason ?? ''}`;
  throw failed.type === 'cluster_block_exception' ? new VectorStoreBlocked(message) : new Error(message);
}

/** A title as words: a file name without its extension, its dashes and underscores as spaces. */
const titleWords = (title: string) =>
  title
    .replace(/\.[a-z0-9]{2,4}$/i, '')
    .replace(/[-_]+/g, ' ')
    .trim();

/**
 * What gets embedded for a chunk: the document's title and the section heading give it the
 * context of its clause ("pilot agreement / Termination"), which a clause's own words often
 * leave out.
 */
export const embeddingText = (c: { title?: string; section: string; text: string }) =>
  [c.title ? titleWords(c.title) : '', c.section && !c.text.startsWith(c.section) ? c.section : '', c.text].filter(Boolean).join('\n');

/** Sentences shorter than this ("(a)", "Term.") say too little to be found by. */
const MIN_SENTENCE_LENGTH = 20;

/**
 * A chunk's sentences and list items, as embedded one by one: lines, and sentences within a
 * line (a stop before a capital), without Markdown heading markers.
 */
export function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.;:!?])\s+(?=[\p{Lu}("“])/u)
    .map((s) => s.replace(/^#{1,6}\s+/, '').trim())
    .filter((s) => s.length >= MIN_SENTENCE_LENGTH);
}

/** What gets embedded for a sentence: the heading of its clause, then the sentence. */
const sentenceEmbeddingText = (section: string, sentence: string) => (section ? `${section}\n${sentence}` : sentence);

/**
 * Whether chunks get a vector per sentence. The hashing fallback's do not: its chunk vector is
 * already the sum of the chunk's word features, so a sentence adds little, while it would put
 * about seven times the vectors into Elasticsearch, whose graph building bounds large ingests
 * (bench/README.md). Search skips the sentence queries then.
 */
const embedsSentences = (ai: Pick<AiPort, 'models'>) => ai.models.embedding !== HASHING_MODEL;

/** A unit vector: the sum of `vectors`, each weighted. */
function weightedMean(vectors: ReadonlyArray<readonly number[]>, weights: readonly number[]): number[] {
  const sum = new Array<number>(vectors[0]!.length).fill(0);
  vectors.forEach((v, i) => {
    for (let d = 0; d < v.length; d++) if (v[d] !== 0) sum[d]! += weights[i]! * v[d]!;
  });
  return normalize(sum);
}

/**
 * The vectors of chunks: each chunk's own and its sentences', in one embedding call that
 * embeds every distinct text once (overlapping chunks share sentences).
 * With sentence vectors, a chunk's own vector is made from them, not by embedding its text
 * again: their mean, each weighted by its length (the model mean-pools its tokens, so a
 * chunk's vector is close to its sentences' weighted by their tokens). Each sentence is thus
 * embedded once, not once alone and once inside its chunk, which halves the model's work per
 * chunk; `npm run eval` keeps its recall (eval/README.md). A chunk with no sentence long enough
 * (a heading, short list items) is embedded as a whole (`embeddingText`).
 */
export async function embedChunks(
  ai: Pick<AiPort, 'embed' | 'models'>,
  chunks: ReadonlyArray<{ title?: string; section: string; text: string }>,
): Promise<Array<{ vector: number[]; sentences: EmbeddedSentence[] }>> {
  const perSentence = embedsSentences(ai);
  const sentences = chunks.map((c) => (perSentence ? sentencesOf(c.text).map((s) => sentenceEmbeddingText(c.section, s)) : []));
  const texts = new Map<string, number>();
  const slot = (text: string) => texts.get(text) ?? texts.set(text, texts.size).size - 1;
  const own = chunks.map((c, i) => (sentences[i]!.length ? -1 : slot(embeddingText(c))));
  const titles = chunks.map((c, i) => (sentences[i]!.length && c.title && titleWords(c.title) ? slot(titleWords(c.title)) : -1));
  const ofSentences = sentences.map((list) => list.map(slot));
  const vectors = await ai.embed([...texts.keys()], 'document');
  return chunks.map((_, i) => {
    const list = sentences[i]!;
    const mine = ofSentences[i]!.map((k) => vectors[k]!);
    if (own[i]! >= 0) return { vector: vectors[own[i]!]!, sentences: [] };
    const weights = list.map((s) => s.length);
    // The title gives a clause its context ("pilot agreement / Termination", `embeddingText`):
    // it counts as one more sentence of average length.
    const title = titles[i]! >= 0 ? [vectors[titles[i]!]!] : [];
    return {
      vector: weightedMean([...mine, ...title], [...weights, ...title.map(() => weights.reduce((a, b) => a + b, 0) / weights.length)]),
      sentences: list.map((text, j) => ({ text, vector: mine[j]! })),
    };
  });
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

/** Text as the keyword ranking sees it: lower-cased, stemmed words, stop words dropped. */
export const keywordTerms = (text: string) => words(text).map(stem).join(' ');

export const chunkId = (sourceId: string, chunkIndex: number) => `${sourceId}:${chunkIndex}`;

/** Enough significant digits to give back the same float32 (what a dense_vector stores) on parsing. */
const FLOAT32_DIGITS = 9;
const ZEROS = '0,'.repeat(EMBEDDING_DIM);

/**
 * A vector as JSON, each value rounded to the float32 Elasticsearch stores anyway and printed
 * with just the digits that name it: a third fewer bytes to send and parse than
 * JSON.stringify's 17 digits of a double, and a run of zeros (most of a hashed vector) is
 * copied, not printed value by value.
 */
export function vectorJson(vector: readonly number[]): string {
  let json = '[';
  let zeros = 0;
  for (const x of vector) {
    if (x === 0) {
      zeros++;
      continue;
    }
    if (zeros) json += ZEROS.slice(0, 2 * zeros);
    zeros = 0;
    json += `${Math.fround(x).toPrecision(FLOAT32_DIGITS)},`;
  }
  if (zeros) json += ZEROS.slice(0, 2 * zeros);
  return `${json.length > 1 ? json.slice(0, -1) : json}]`;
}

/** A stored chunk's JSON line with its vectors: the bulk API takes a pre-serialized line as it is. */
const withVector = (source: object, vector: readonly number[], sentences: readonly EmbeddedSentence[] = []) =>
  `${JSON.stringify(source).slice(0, -1)},"embedding":${vectorJson(vector)},"sentences":[${sentences
    .map((s) => `{"text":${JSON.stringify(s.text)},"embedding":${vectorJson(s.vector)}}`)
    .join(',')}]}`;

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

/** Makes everything written so far searchable. */
export async function refreshCollections(store: VectorStore, collections: readonly Collection[] = COLLECTIONS): Promise<void> {
  await store.es.indices.refresh({ index: collections.map((c) => indexName(store, c)) });
}

/**
 * Deletes every chunk matching `query` by search-then-bulk-delete, in pages. Not
 * `_delete_by_query`: it lives in the reindex module, which minimal distributions (the
 * local integ-test build) do not ship, and a page loop works the same everywhere.
 */
async function deleteMatching(store: VectorStore, indices: string[], query: estypes.QueryDslQueryContainer): Promise<number> {
  await store.es.indices.refresh({ index: indices, ignore_unavailable: true });
  let deleted = 0;
  for (;;) {
    const page = await store.es.search({ index: indices, query, size: 1000, _source: false, ignore_unavailable: true });
    if (!page.hits.hits.length) return deleted;
    const res = await store.es.bulk({
      operations: page.hits.hits.map((h) => ({ delete: { _index: h._index, _id: h._id! } })),
      refresh: true,
    });
    // A refused delete would come back in the next page forever.
    checkBulk(res, 'deletion');
    deleted += res.items.filter((i) => i.delete?.result === 'deleted').length;
  }
}

/**
 * Removes a source's chunks from one collection (or all): every chunk, or only those
 * from `fromChunk` on (what is left of a longer earlier version after re-indexing).
 */
export function deleteSource(
  store: VectorStore,
  organizationId: string,
  sourceId: string,
  opts: { collections?: readonly Collection[]; fromChunk?: number } = {},
): Promise<number> {
  return deleteSources(store, organizationId, [{ sourceId, fromChunk: opts.fromChunk }], opts);
}

/** deleteSource for several sources of an organization in one pass (one refresh and search, not one each). */
export async function deleteSources(
  store: VectorStore,
  organizationId: string,
  sources: ReadonlyArray<{ sourceId: string; fromChunk?: number }>,
  opts: { collections?: readonly Collection[] } = {},
): Promise<number> {
  if (!sources.length) return 0;
  await ensureCollections(store);
  const ofSource = sources.map(({ sourceId, fromChunk }) => ({
    bool: {
      filter: [{ term: { source_id: sourceId } }, ...(fromChunk !== undefined ? [{ range: { chunk_index: { gte: fromChunk } } }] : [])],
    },
  }));
  return deleteMatching(
    store,
    (opts.collections ?? COLLECTIONS).map((c) => indexName(store, c)),
    { bool: { filter: [{ term: { organization_id: organizationId } }, { bool: { should: ofSource, minimum_should_match: 1 } }] } },
  );
}

/** Removes an organization's chunks in one collection indexed before `before` (stale after a full re-index). */
export async function deleteIndexedBefore(
  store: VectorStore,
  collection: Collection,
  organizationId: string,
  before: Date,
): Promise<number> {
  await ensureCollections(store);
  return deleteMatching(store, [indexName(store, collection)], {
    bool: { filter: [{ term: { organization_id: organizationId } }, { range: { indexed_at: { lt: before.toISOString() } } }] },
  });
}

export interface SearchOptions {
  /** Hits taken from each ranking, and returned at most. */
  k: number;
  /** Raw cosine floor: a hit below it is no hit, however well its words match. */
  minRelevance: number;
}

/** Reciprocal rank fusion constant (Cormack et al. 2009): damps the weight of the very first ranks. */
const RRF_K = 60;

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
  const relevance = (key: string) => Math.max(chunkCos.get(key) ?? -1, sentenceCos.get(key) ?? -1);
  const vectorScore = (key: string) => ((chunkCos.get(key) ?? -1) + relevance(key)) / 2;

  const vectorRanking = [...new Set([...byChunk.hits.hits, ...sentenceHits].map(keyOf))].sort((x, y) => vectorScore(y) - vectorScore(x));
  const fused = new Map<string, number>();
  for (const ranking of [vectorRanking, bm25.hits.hits.map(keyOf)]) {
    ranking.forEach((key, rank) => fused.set(key, (fused.get(key) ?? 0) + 1 / (RRF_K + rank + 1)));
  }
  return [...fused.entries()]
    .filter(([key]) => relevance(key) >= opts.minRelevance)
    .sort((x, y) => y[1] - x[1])
    .slice(0, opts.k)
    .flatMap(([key, score]) => toHit(store, candidates.get(key)!, relevance(key), score));
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

export interface CollectionStats {
  vectors: number;
  status: string;
}

/** One organization's vector counts per collection, and each index's health. */
export async function collectionStats(store: VectorStore, organizationId: string): Promise<Record<Collection, CollectionStats>> {
  await ensureCollections(store);
  const entries = await Promise.all(
    COLLECTIONS.map(async (c) => {
      const index = indexName(store, c);
      const [count, health] = await Promise.all([
        store.es.count({ index, query: { term: { organization_id: organizationId } } }),
        store.es.cluster.health({ index, timeout: '2s' }),
      ]);
      return [c, { vectors: count.count, status: health.status.toLowerCase() }] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<Collection, CollectionStats>;
}

/** The cluster is down or unreachable (an outage for the caller, not a bug). */
export function isVectorStoreDown(err: unknown): boolean {
  return (
    err instanceof VectorStoreBlocked ||
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError ||
    (err instanceof errors.ResponseError && err.statusCode === 503)
  );
}
