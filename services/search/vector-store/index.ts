/**
 * The vector store: the three RAG collections on Elasticsearch: `contracts_kb` (contract texts),
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
 *
 * What features use of it; each module has one job: `collections` (names, mapping, creation),
 * `upgrade-collections` (moving to a new mapping generation), `chunk-text` (what of a chunk is
 * embedded and matched), `embed-chunks` (its vectors), `vector-json` (its bulk line),
 * `write-chunks`, `reembed-chunks`, `delete-chunks`, `search-chunks`, `failures` (refused
 * bulk items, outages).
 */
export {
  COLLECTIONS,
  collectionStats,
  ensureCollections,
  indexName,
  refreshCollections,
  type Collection,
  type VectorStore,
} from './collections';
export { upgradeCollections } from './upgrade-collections';
export { embeddingText, sentencesOf } from './chunk-text';
export { embedChunks, type EmbeddedSentence } from './embed-chunks';
export { vectorJson } from './vector-json';
export { chunkId, chunkRecords, indexChunks, type ChunkRecord } from './write-chunks';
export { reembedStaleChunks } from './reembed-chunks';
export { deleteIndexedBefore, deleteSource, deleteSources } from './delete-chunks';
export {
  FUSION,
  fuseCandidates,
  MIN_RELEVANCE,
  searchCandidates,
  searchChunks,
  storedSentenceVectors,
  type Candidates,
  type Fusion,
  type SearchHit,
} from './search-chunks';
export { isVectorStoreDown } from './failures';
