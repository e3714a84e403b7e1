/**
 * The repository search index: one document per contract, under the alias
 * `<prefix>contracts_search`, which names the index of the current mapping generation
 * (`<alias>-v<GENERATION>`). A mapping change bumps GENERATION; the worker then starts the
 * reindex workflow (workflows/search-reindex.ts), which fills the new index from the store
 * and moves the alias to it in one step. Until then the old index answers, and every write
 * goes to both.
 *
 * Documents are written with external versions: the time the writer read the store. A
 * writer holding an older read than what is indexed loses (a version conflict, ignored), so
 * writers racing (the API, the event workflow, a reindex) end in the latest state read.
 */
import { errors } from '@elastic/elasticsearch';
import type { estypes } from '@elastic/elasticsearch';
import type { Engines } from '../../platform/engines';

export type SearchEngines = Pick<Engines, 'es' | 'config'>;

/** Bumped on every change of MAPPINGS or SETTINGS: the worker then rebuilds into a new index. */
export const GENERATION = 3;

export const searchAlias = (s: Pick<Engines, 'config'>) => `${s.config.ELASTICSEARCH_INDEX_PREFIX}contracts_search`;
export const generationIndex = (s: Pick<Engines, 'config'>, generation = GENERATION) => `${searchAlias(s)}-v${generation}`;

/** Deep `page`s are refused past this many hits (the cursor goes further): it bounds the heap a page costs. */
export const MAX_WINDOW = 100_000;

const keyword = { type: 'keyword' } as const;
/** Case-insensitive sorting and exact matching of names. */
const sortable = { type: 'keyword', normalizer: 'lowercase', ignore_above: 512 } as const;

/**
 * Lean on purpose (Elasticsearch runs in 512 MB): text fields keep no norms where length
 * does not matter, `_source` keeps what the answer shows, and nothing else is indexed.
 */
const MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    organization_id: keyword,
    id: keyword,
    title: { type: 'text', fields: { raw: sortable } },
    counterparty: { type: 'text', fields: { raw: sortable, exact: { type: 'keyword', ignore_above: 512 } } },
    // The list's substring search: title and counterparty as 3-grams (substrings.ts), one value each.
    substrings: { type: 'text', analyzer: 'whitespace', norms: false },
    content: { type: 'text', norms: false },
    // Each ready document of the contract, page by page, so a highlight names document and page.
    pages: {
      type: 'nested',
      properties: { document_id: keyword, page: { type: 'integer' }, text: { type: 'text', norms: false } },
    },
    type: keyword,
    status: keyword,
    currency: keyword,
    vendor_id: keyword,
    created_by: keyword,
    value: { type: 'double' },
    start_date: { type: 'date' },
    end_date: { type: 'date' },
    signed_at: { type: 'date' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    // As written (facets show them so); filters match them case-insensitively.
    governing_law: { type: 'keyword', ignore_above: 256 },
    dispute_venue: { type: 'keyword', ignore_above: 256 },
    auto_renewal: { type: 'boolean' },
    termination_for_convenience: { type: 'boolean' },
    opt_out_deadline: { type: 'date' },
    liability_cap_present: { type: 'boolean' },
    liability_cap_amount: { type: 'double' },
    payment_terms_days: { type: 'integer' },
    signature_pending: { type: 'boolean' },
    open_tasks: { type: 'integer' },
    // When the store was read: an organization's rebuild removes what it did not rewrite.
    indexed_at: { type: 'date' },
    // What the answer shows and nothing searches.
    record: { type: 'object', enabled: false },
    terms: { type: 'object', enabled: false },
  },
};

const SETTINGS: estypes.IndicesIndexSettings = {
  number_of_shards: 1,
  auto_expand_replicas: '0-1',
  max_result_window: MAX_WINDOW,
  // A write that must be seen at once asks for a refresh itself (writeSearchDocs).
  refresh_interval: '1s',
  // The lists' default order (newest first, ties by id: sortOf's): a page of it reads its own
  // hits and stops, where an unsorted index has every match of the organization sorted.
  sort: { field: ['created_at', 'id'], order: ['desc', 'desc'] },
  analysis: { normalizer: { lowercase: { type: 'custom', filter: ['lowercase'] } } },
};

export const errorType = (err: unknown) =>
  err instanceof errors.ResponseError ? (err.body as { error?: { type?: string } } | undefined)?.error?.type : undefined;

/** Creates an index of this generation (no alias); harmless when it exists. */
export async function createGenerationIndex(s: SearchEngines): Promise<string> {
  const index = generationIndex(s);
  try {
    await s.es.indices.create({ index, settings: SETTINGS, mappings: MAPPINGS });
  } catch (err) {
    if (errorType(err) !== 'resource_already_exists_exception') throw err;
  }
  return index;
}

/** The indices the alias names now (one, or none before the first build). */
export async function aliasedIndices(s: SearchEngines): Promise<string[]> {
  try {
    return Object.keys(await s.es.indices.getAlias({ name: searchAlias(s) }));
  } catch (err) {
    if (err instanceof errors.ResponseError && err.statusCode === 404) return [];
    throw err;
  }
}

/**
 * Where this generation stands: `current` (the alias names its index), `missing` (no alias:
 * the index is made and aliased at once, empty, for the reindex to fill), or `stale` (the
 * alias names an older generation's index, which serves until the reindex moves it).
 */
export async function ensureSearchIndex(s: SearchEngines): Promise<'current' | 'missing' | 'stale'> {
  const target = generationIndex(s);
  const aliased = await aliasedIndices(s);
  if (aliased.includes(target)) return 'current';
  if (aliased.length) {
    // Writes go to the older index too until the rebuild moves the alias: it learns the fields
    // added since (a field's type never changes within the mapping; a new generation adds).
    await s.es.indices.putMapping({ index: aliased, properties: MAPPINGS.properties });
    return 'stale';
  }
  await createGenerationIndex(s);
  try {
    await s.es.indices.updateAliases({ actions: [{ add: { index: target, alias: searchAlias(s) } }] });
  } catch (err) {
    // Another process aliased it first.
    if (!(await aliasedIndices(s)).length) throw err;
  }
  invalidateTargets(s);
  return 'missing';
}

/** Whether this generation's index was filled from the store to the end (a reindex finished). */
export async function isBuilt(s: SearchEngines): Promise<boolean> {
  const mappings = await s.es.indices.getMapping({ index: generationIndex(s) });
  return Object.values(mappings)[0]?.mappings._meta?.built === true;
}

/**
 * Marks this generation's index as filled, moves the alias to it and drops the indices it
 * named before, in one step.
 */
export async function swapAlias(s: SearchEngines): Promise<string[]> {
  const target = generationIndex(s);
  const old = (await aliasedIndices(s)).filter((i) => i !== target);
  await s.es.indices.putMapping({ index: target, _meta: { built: true } });
  await s.es.indices.refresh({ index: target });
  await s.es.indices.updateAliases({
    actions: [{ add: { index: target, alias: searchAlias(s) } }, ...old.map((index) => ({ remove_index: { index } }))],
  });
  invalidateTargets(s);
  return old;
}

/** How long a process trusts its list of write targets; the reindex waits longer before it copies. */
export const TARGETS_TTL_MS = 5_000;
const targetsCache = new WeakMap<object, Map<string, { at: number; indices: Promise<string[]> }>>();

function invalidateTargets(s: SearchEngines) {
  targetsCache.get(s.es)?.delete(searchAlias(s));
}

/** The indices a write goes to: the alias's, and this generation's while it is being built. */
async function writeTargets(s: SearchEngines): Promise<string[]> {
  let byAlias = targetsCache.get(s.es);
  if (!byAlias) targetsCache.set(s.es, (byAlias = new Map<string, { at: number; indices: Promise<string[]> }>()));
  const key = searchAlias(s);
  const cached = byAlias.get(key);
  if (cached && Date.now() - cached.at < TARGETS_TTL_MS) return cached.indices;
  const indices = (async () => {
    if ((await ensureSearchIndex(s)) === 'current') return [generationIndex(s)];
    const building = await s.es.indices.exists({ index: generationIndex(s) });
    return [...new Set([...(await aliasedIndices(s)), ...(building ? [generationIndex(s)] : [])])];
  })();
  indices.catch(() => byAlias.delete(key));
  byAlias.set(key, { at: Date.now(), indices });
  return indices;
}

export interface SearchDoc {
  id: string;
  organization_id: string;
  [field: string]: unknown;
}

export interface SearchWrite {
  /** Documents to write, and ids of contracts gone from the store. */
  docs: SearchDoc[];
  deleted: string[];
  /** When the store was read: the documents' external version. */
  readAt: number;
}

/**
 * Writes documents and removals to every target index. `refresh: true` answers once
 * they are searchable (read-your-writes for the API's own writes); background writers pass
 * false. A stale write (older read than indexed) is dropped as intended.
 */
export async function writeSearchDocs(
  s: SearchEngines,
  write: SearchWrite,
  options: { refresh: boolean; indices?: string[] },
): Promise<void> {
  if (!write.docs.length && !write.deleted.length) return;
  const indices = options.indices ?? (await writeTargets(s));
  const version = { version: write.readAt, version_type: 'external_gte' as const };
  const operations = indices.flatMap((index) => [
    ...write.docs.flatMap((d) => [{ index: { _index: index, _id: d.id, ...version } }, d]),
    ...write.deleted.map((id) => ({ delete: { _index: index, _id: id, ...version } })),
  ]);
  const res = await s.es.bulk({ operations, refresh: options.refresh });
  if (!res.errors) return;
  const failed = res.items
    .map((i) => Object.values(i)[0])
    .find((r) => r?.error && r.error.type !== 'version_conflict_engine_exception' && !(r.status === 404));
  if (failed?.error) throw new Error(`search index write failed: ${failed.error.type}: ${failed.error.reason ?? ''}`);
}
