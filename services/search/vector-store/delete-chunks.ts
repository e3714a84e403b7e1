/** Removing chunks: of sources, or of an organization's collection indexed before a time. */
import type { estypes } from '@elastic/elasticsearch';
import { COLLECTIONS, ensureCollections, indexName, type Collection, type VectorStore } from './collections';
import { checkBulk } from './failures';

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
