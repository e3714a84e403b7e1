/** Moving the collections to an index of the current mapping generation. */
import {
  COLLECTIONS,
  currentIndex,
  ensureCollections,
  indexName,
  INDEX_SETTINGS,
  MAPPINGS,
  type Collection,
  type VectorStore,
} from './collections';
import { checkBulk, ignoreExisting } from './failures';

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
