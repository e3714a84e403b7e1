/**
 * The three collections: their names (an alias of the index of the current mapping generation),
 * their mapping, their creation, and what reads them whole (refresh, counts).
 */
import type { Client, estypes } from '@elastic/elasticsearch';
import { EMBEDDING_DIM, type AiPort } from '../../../platform/ai/port';
import type { Config } from '../../../platform/config';
import { errorType } from './failures';

export const COLLECTIONS = ['contracts_kb', 'knowledge_base', 'user_documents'] as const;
export type Collection = (typeof COLLECTIONS)[number];

export interface VectorStore {
  es: Client;
  config: Pick<Config, 'ELASTICSEARCH_INDEX_PREFIX'>;
  /** Its embedding model names the vectors this process writes and searches. */
  ai: Pick<AiPort, 'models'>;
}

export const modelOf = (store: VectorStore) => store.ai.models.embedding;

/** A chunk as stored, without its vectors and keyword terms. */
export interface StoredChunk {
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
export const currentIndex = (store: VectorStore, c: Collection) => `${indexName(store, c)}-v${GENERATION}`;

/** The collection of a hit's index: the current generation's, or one an earlier version made. */
export const collectionOf = (store: VectorStore, index: string): Collection =>
  COLLECTIONS.find((c) => index === currentIndex(store, c) || index === indexName(store, c)) ?? 'user_documents';

const vectorField = (type: estypes.MappingDenseVectorIndexOptionsType): estypes.MappingDenseVectorProperty => ({
  type: 'dense_vector',
  dims: EMBEDDING_DIM,
  index: true,
  similarity: 'cosine',
  index_options: { type },
});

export const MAPPINGS: estypes.MappingTypeMapping = {
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
    // organization, one model) leaves, then rescores the best with the floats (`RESCORE`, search-chunks.ts).
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

export const INDEX_SETTINGS: estypes.IndicesIndexSettings = { number_of_shards: 1, auto_expand_replicas: '0-1' };

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

/** Makes everything written so far searchable. */
export async function refreshCollections(store: VectorStore, collections: readonly Collection[] = COLLECTIONS): Promise<void> {
  await store.es.indices.refresh({ index: collections.map((c) => indexName(store, c)) });
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
