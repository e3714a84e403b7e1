import { expect } from 'chai';
import { Types } from 'mongoose';
import type { estypes } from '@elastic/elasticsearch';
import { testEnv } from '../../support/env';
import { createLocalAi } from '../../../platform/ai/local';
import type { AiPort } from '../../../platform/ai/port';
import { chunkPages } from '../../../services/search/chunking';
import {
  chunkRecords,
  deleteSource,
  embedChunks,
  ensureCollections,
  indexChunks,
  indexName,
  isVectorStoreDown,
  refreshCollections,
  searchChunks,
  upgradeCollections,
  type VectorStore,
} from '../../../services/search/vector-store';

/**
 * An index an earlier version made for a collection: under the collection's own name, its
 * vectors in an int8 HNSW graph, and without most fields added since.
 */
const EARLIER_MAPPING: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    organization_id: { type: 'keyword' },
    source_id: { type: 'keyword' },
    text: { type: 'text' },
    embedding: { type: 'dense_vector', dims: 3072, index: true, similarity: 'cosine', index_options: { type: 'int8_hnsw' } },
  },
};

const TEXT = [
  '1. Payment',
  'The Customer pays each invoice within forty-five days of receipt by bank transfer.',
  '2. Termination',
  'Either party may terminate this Agreement on ninety days written notice to the other party.',
  '3. Insurance',
  'The Supplier keeps public liability insurance of at least five million pounds for each claim.',
].join('\n\n');

const vectorTypes = async (store: VectorStore, index: string) => {
  const [mapping] = Object.values(await store.es.indices.getMapping({ index }));
  const props = mapping!.mappings.properties!;
  const sentences = props.sentences as estypes.MappingNestedProperty;
  return [props.embedding, sentences.properties!.embedding].map((p) => (p as estypes.MappingDenseVectorProperty).index_options?.type);
};

describe('vector collections', function () {
  this.timeout(60000);

  it('are names of indices whose chunk vectors are int8_flat', async () => {
    const { services } = testEnv();
    await ensureCollections(services);
    const name = indexName(services, 'user_documents');
    expect(Object.keys(await services.es.indices.get({ index: name }))).to.deep.equal([`${name}-v2`]);
    expect(await vectorTypes(services, name)).to.deep.equal(['int8_flat', 'int8_hnsw']);
  });

  it('moves an index an earlier version made into one with int8_flat chunk vectors, chunks and cosines kept', async () => {
    const env = testEnv();
    const store: VectorStore & { ai: AiPort } = {
      es: env.services.es,
      config: { ELASTICSEARCH_INDEX_PREFIX: `${env.config.ELASTICSEARCH_INDEX_PREFIX}upgrade_` },
      ai: createLocalAi(),
    };
    const name = indexName(store, 'knowledge_base');
    await store.es.indices.create({ index: name, mappings: EARLIER_MAPPING });

    // The earlier index serves as it is, with the fields added since.
    const organizationId = new Types.ObjectId().toHexString();
    const source = { organizationId, sourceType: 'document' as const, sourceId: 'old-terms', title: 'Old terms.txt' };
    const chunks = chunkPages([{ page: 1, text: TEXT }], { size: 120, overlap: 0 });
    expect(chunks.length).to.be.at.least(3);
    const vectors = await embedChunks(store.ai, chunks);
    await indexChunks(store, 'knowledge_base', chunkRecords(source, chunks, vectors));
    await refreshCollections(store);
    expect(Object.keys(await store.es.indices.get({ index: name }))).to.deep.equal([name]);
    expect(await vectorTypes(store, name)).to.deep.equal(['int8_hnsw', 'int8_hnsw']);
    const question = 'How many days does the customer have to pay an invoice?';
    const [vector] = await store.ai.embed([question], 'query');
    const search = () => searchChunks(store, organizationId, { text: question, vector: vector! }, { k: 5, minRelevance: 0.1 });
    // Relevance is the exact cosine, rescored from the float vectors, before and after the move.
    const exact = (h: { chunkIndex: number }) =>
      vectors[chunks.findIndex((c) => c.index === h.chunkIndex)]!.vector.reduce((sum, x, i) => sum + x * vector![i]!, 0);
    const before = await search();
    expect(before.map((h) => h.collection)).to.include('knowledge_base');
    before.forEach((h) => expect(h.relevance).to.be.closeTo(exact(h), 1e-4));

    // A write while the move is under way is refused as an outage (503 to a caller), not looped over.
    await store.es.indices.putSettings({ index: name, settings: { 'index.blocks.write': true } });
    const refused = await deleteSource(store, organizationId, 'old-terms').catch((err: unknown) => err);
    expect(isVectorStoreDown(refused), String(refused)).to.equal(true);
    await store.es.indices.putSettings({ index: name, settings: { 'index.blocks.write': false } });

    expect(await upgradeCollections(store)).to.deep.equal(['knowledge_base']);
    expect(Object.keys(await store.es.indices.get({ index: name }))).to.deep.equal([`${name}-v2`]);
    expect(await vectorTypes(store, name)).to.deep.equal(['int8_flat', 'int8_hnsw']);
    expect((await store.es.count({ index: name })).count).to.equal(chunks.length);
    const after = await search();
    expect(after.map((h) => [h.sourceId, h.chunkIndex, h.collection])).to.deep.equal(
      before.map((h) => [h.sourceId, h.chunkIndex, h.collection]),
    );
    after.forEach((h) => expect(h.relevance).to.be.closeTo(exact(h), 1e-4));

    // Nothing is left to move, and the collection takes writes again.
    expect(await upgradeCollections(store)).to.deep.equal([]);
    expect(await deleteSource(store, organizationId, 'old-terms')).to.equal(chunks.length);
  });
});
