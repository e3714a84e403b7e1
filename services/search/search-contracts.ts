/**
 * Repository search (`GET /search/contracts`) and the contract list (`GET /contracts`), both
 * answered by the search index: a page of contracts with their key terms, highlights that
 * cite where each match is, facets with exact counts, and a cursor; or every match as CSV.
 */
import type { estypes } from '@elastic/elasticsearch';
import { searchErrors } from './errors';
import { isVectorStoreDown } from './vector-store';
import { searchAlias, type SearchEngines } from './contract-search-index';
import {
  decodeCursor,
  encodeCursor,
  facetAggs,
  highlightOf,
  scopedQuery,
  sortOf,
  type SearchCriteria,
  type SearchParams,
} from './contract-search-query';

export interface Highlight {
  field: string;
  document_id?: string;
  page?: number;
  fragment: string;
}

interface Source {
  record?: Record<string, unknown>;
  terms?: Record<string, unknown> | null;
}

export interface SearchAnswer {
  data: Array<Record<string, unknown> & { snippet: string; terms: Record<string, unknown> | null; highlights: Highlight[] }>;
  total: number;
  page: number | null;
  page_size: number;
  next_cursor: string | null;
  facets: Record<string, Array<{ value: string; count: number }>>;
}

const unavailable = () => searchErrors.search_unavailable('The search engine is unavailable; try again shortly');

/**
 * A page of hits, the exact number of matches and the facets, in one round trip as two
 * searches. The count and facets visit every match, so they go in a `size: 0` search, which
 * the shard request cache keeps until the index's next refresh (each API write refreshes, so
 * a write makes the next read count again). The page asks for no total: with the index
 * sorted newest first (contract-search-index.ts), the default order stops after the page
 * instead of sorting every match.
 */
async function pageWithTotal<T>(
  s: SearchEngines,
  query: estypes.QueryDslQueryContainer,
  page: Omit<estypes.SearchRequest, 'query' | 'aggs' | 'track_total_hits'>,
  aggs?: Record<string, estypes.AggregationsAggregationContainer>,
): Promise<{ hits: Array<estypes.SearchHit<T>>; total: number; aggregations?: Record<string, estypes.AggregationsAggregate> }> {
  let res: estypes.MsearchResponse<T>;
  try {
    res = await s.es.msearch<T>({
      index: searchAlias(s),
      ignore_unavailable: true,
      allow_no_indices: true,
      searches: [
        { request_cache: true },
        { query, size: 0, track_total_hits: true, ...(aggs ? { aggs } : {}) },
        {},
        { query, ...page, track_total_hits: false },
      ],
    });
  } catch (err) {
    if (isVectorStoreDown(err)) throw unavailable();
    throw err;
  }
  const [counted, paged] = res.responses.map((r) => {
    if ('error' in r) {
      if (r.status === 503) throw unavailable();
      throw new Error(`search failed: ${r.error.type}: ${r.error.reason ?? ''}`);
    }
    return r;
  });
  const total = counted!.hits.total;
  return {
    hits: paged!.hits.hits,
    total: typeof total === 'number' ? total : (total?.value ?? 0),
    ...(counted!.aggregations ? { aggregations: counted!.aggregations } : {}),
  };
}

function highlightsOf(hit: estypes.SearchHit<Source>): Highlight[] {
  const own = Object.entries(hit.highlight ?? {}).flatMap(([field, fragments]) => fragments.map((fragment) => ({ field, fragment })));
  const pages = (hit.inner_hits?.pages?.hits.hits ?? []).flatMap((inner) => {
    const where = inner._source as { document_id?: string; page?: number } | undefined;
    return (inner.highlight?.['pages.text'] ?? []).map((fragment) => ({
      field: 'document',
      ...(where?.document_id ? { document_id: where.document_id } : {}),
      ...(where?.page !== undefined ? { page: where.page } : {}),
      fragment,
    }));
  });
  return [...own, ...pages];
}

type Bucket = { key: string | number; key_as_string?: string; doc_count: number };

function facetsOf(aggs: Record<string, estypes.AggregationsAggregate> | undefined): SearchAnswer['facets'] {
  return Object.fromEntries(
    Object.entries(aggs ?? {}).map(([name, agg]) => [
      name,
      ((agg as { buckets?: Bucket[] }).buckets ?? []).map((b) => ({
        value: name === 'renewal_window' ? String(b.key) : (b.key_as_string ?? String(b.key)),
        count: b.doc_count,
      })),
    ]),
  );
}

/** One page of the search: by `page` (exact total) or after a cursor. */
export async function searchContracts(s: SearchEngines, organizationId: string, p: SearchParams): Promise<SearchAnswer> {
  const { key, sort } = sortOf(p);
  const after = p.cursor ? decodeCursor(s.config, organizationId, p.cursor, key) : null;
  if (p.cursor && !after) throw searchErrors.search_cursor_invalid('cursor: not a cursor of this search and sort');
  const highlight = highlightOf(p);
  const { hits, total, aggregations } = await pageWithTotal<Source>(
    s,
    scopedQuery(organizationId, p),
    {
      sort,
      size: p.page_size,
      ...(after ? { search_after: after } : { from: (p.page - 1) * p.page_size }),
      // Never the text (up to 500,000 characters a contract): it stays behind GET /contracts/:id.
      _source: { includes: ['record', 'terms'] },
      ...(highlight ? { highlight } : {}),
    },
    p.facets?.length ? facetAggs(p.facets) : undefined,
  );
  const last = hits.at(-1);
  const seen = after ? null : (p.page - 1) * p.page_size + hits.length;
  return {
    data: hits.map((h) => ({
      ...h._source?.record,
      // Documents written before snippets existed have none until the generation's rebuild.
      snippet: typeof h._source?.record?.snippet === 'string' ? h._source.record.snippet : '',
      terms: h._source?.terms ?? null,
      highlights: highlightsOf(h),
    })),
    total,
    page: after ? null : p.page,
    page_size: p.page_size,
    next_cursor:
      last?.sort && hits.length === p.page_size && (seen === null || seen < total)
        ? encodeCursor(s.config, organizationId, key, last.sort)
        : null,
    facets: facetsOf(aggregations),
  };
}

/** A page of the contract list (`GET /contracts`): its items and exact total. */
export async function contractListPage(
  s: SearchEngines,
  organizationId: string,
  criteria: SearchCriteria,
  page: { page: number; page_size: number },
): Promise<{ items: unknown[]; total: number }> {
  const { hits, total } = await pageWithTotal<{ record: Record<string, unknown> }>(s, scopedQuery(organizationId, criteria), {
    sort: sortOf(criteria).sort,
    from: (page.page - 1) * page.page_size,
    size: page.page_size,
    _source: { includes: ['record'] },
  });
  return { items: hits.map((h) => listItemOf(h._source?.record ?? {})), total };
}

/** The list's item (models/contract.ts contractListItem) from the indexed record. */
const listItemOf = (r: Record<string, unknown>) => ({
  id: r.id,
  title: r.title,
  type: r.type,
  status: r.status,
  counterparty: r.counterparty,
  risk_score: r.risk_score ?? null,
  vendor_id: r.vendor_id ?? null,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** CSV columns: the contract's fields, then its key terms. */
export const CSV_COLUMNS = [
  'id',
  'title',
  'type',
  'status',
  'counterparty',
  'vendor_id',
  'value',
  'currency',
  'start_date',
  'end_date',
  'signed_at',
  'created_at',
  'updated_at',
  'governing_law',
  'dispute_venue',
  'auto_renewal',
  'termination_for_convenience',
  'opt_out_deadline',
  'liability_cap_present',
  'liability_cap_amount',
  'payment_terms_days',
  'signature_pending',
  'open_tasks',
] as const;

/** A CSV cell: quoted when it must be, and never a formula when a spreadsheet opens it. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let t = typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(t) && typeof v === 'string') t = `'${t}`;
  return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

/** Hits per page of the export. */
const EXPORT_PAGE = 1000;

/**
 * Every match as CSV lines (the header first), in the search's order, read through a point in
 * time so that writes during the export neither repeat nor skip a contract.
 */
export async function* exportContractsCsv(s: SearchEngines, organizationId: string, p: SearchParams): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let pit: string;
  try {
    pit = (await s.es.openPointInTime({ index: searchAlias(s), keep_alive: '1m', ignore_unavailable: true })).id;
  } catch (err) {
    if (isVectorStoreDown(err)) throw unavailable();
    throw err;
  }
  try {
    let after: estypes.SortResults | undefined;
    for (;;) {
      const res = await s.es.search<Record<string, unknown>>({
        pit: { id: pit, keep_alive: '1m' },
        query: scopedQuery(organizationId, p),
        sort: sortOf(p).sort,
        size: EXPORT_PAGE,
        track_total_hits: false,
        _source: { includes: [...CSV_COLUMNS] },
        ...(after ? { search_after: after } : {}),
      });
      if (res.pit_id) pit = res.pit_id;
      const hits = res.hits.hits;
      if (!hits.length) return;
      yield hits.map((h) => `${CSV_COLUMNS.map((c) => cell(h._source?.[c])).join(',')}\r\n`).join('');
      after = hits.at(-1)!.sort;
      if (hits.length < EXPORT_PAGE) return;
    }
  } finally {
    await s.es.closePointInTime({ id: pit }).catch(() => undefined);
  }
}
