/**
 * `GET /search/contracts`: its query parameters, and the one place that turns criteria into
 * an Elasticsearch query. Every query built here is filtered by the caller's organization
 * (`scopedQuery`); no other module builds a query of the search index.
 *
 * `q` is words: a `match` over the fields, which has no syntax (`*:*` and `field:value` are
 * text, analyzed like any other). Repeated parameters are OR within a field; fields AND.
 */
import { z } from 'zod';
import type { estypes } from '@elastic/elasticsearch';
import { choice, idSchema } from '../../platform/input';
import { CONTRACT_STATUSES } from '../../models/contract';
import { dayOf } from '../../platform/dates';
import type { Config } from '../../platform/config';
import { derivedSecret, safeEqual } from '../../platform/security/crypto';
import { GENERATION, MAX_WINDOW } from './contract-search-index';
import { substringQuery } from './substrings';

export const FACETS = ['status', 'type', 'counterparty', 'governing_law', 'auto_renewal', 'renewal_window'] as const;
export type Facet = (typeof FACETS)[number];
export const SORTS = ['relevance', 'created_at', 'updated_at', 'end_date', 'opt_out_deadline', 'value', 'title'] as const;
export const DATE_RANGES = ['start_date', 'end_date', 'signed_at', 'created_at', 'opt_out_deadline'] as const;
/** Counterparties a facet lists (the most frequent first). */
export const TOP_COUNTERPARTIES = 20;
export const MAX_Q = 1000;

/** One value or the same parameter repeated: always a list. */
const many = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).max(50, 'must be given at most 50 times')).optional();
const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const flag = choice(['true', 'false']).transform((v) => v === 'true');
const num = z.coerce.number('must be a number').finite('must be a number').min(0, 'must not be negative');
const isoDate = z.iso.date('must be a date YYYY-MM-DD');
const sortParam = z
  .string()
  .refine(
    (v) => v !== '-relevance' && (SORTS as readonly string[]).includes(v.replace(/^-/, '')),
    `must be one of ${SORTS.join(', ')}, with - in front for descending (not relevance)`,
  );

const dateRanges = Object.fromEntries(DATE_RANGES.flatMap((f) => [`${f}_from`, `${f}_to`].map((k) => [k, isoDate.optional()]))) as Record<
  `${(typeof DATE_RANGES)[number]}_${'from' | 'to'}`,
  z.ZodOptional<typeof isoDate>
>;

/** The filters, shared by the search and the contract list. */
export const searchFilters = z.strictObject({
  status: many(choice(CONTRACT_STATUSES)),
  type: many(z.string().regex(/^[a-z_]{1,50}$/, 'must be a contract type such as nda')),
  counterparty: many(text(300)),
  vendor_id: many(idSchema),
  owner: many(idSchema),
  currency: many(z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')),
  governing_law: many(text(200)),
  dispute_venue: many(text(200)),
  auto_renewal: flag.optional(),
  termination_for_convenience: flag.optional(),
  liability_cap: choice(['present', 'absent']).optional(),
  liability_cap_min: num.optional(),
  payment_terms_days_min: num.int('must be a whole number').optional(),
  payment_terms_days_max: num.int('must be a whole number').optional(),
  signature_pending: flag.optional(),
  open_tasks: flag.optional(),
  value_min: num.optional(),
  value_max: num.optional(),
  ...dateRanges,
});
export type SearchFilters = z.infer<typeof searchFilters>;

const rangeChecks = (f: SearchFilters, ctx: z.RefinementCtx) => {
  const pairs: Array<[string, unknown, unknown]> = [
    ['value', f.value_min, f.value_max],
    ['payment_terms_days', f.payment_terms_days_min, f.payment_terms_days_max],
    ...DATE_RANGES.map((d): [string, unknown, unknown] => [d, f[`${d}_from`], f[`${d}_to`]]),
  ];
  for (const [field, from, to] of pairs) {
    if (from !== undefined && to !== undefined && (from as number | string) > (to as number | string))
      ctx.addIssue({ code: 'custom', path: [field], message: 'the range ends before it starts' });
  }
};

export const searchParams = searchFilters
  .extend({
    q: z.string().trim().max(MAX_Q, `must be at most ${MAX_Q} characters`).optional(),
    facets: z
      .string()
      .transform((v) => v.split(',').filter(Boolean))
      .pipe(z.array(choice(FACETS)))
      .optional(),
    sort: sortParam.optional(),
    page: z.coerce.number().int().min(1).default(1),
    page_size: z.coerce.number().int().min(1).max(100, 'must be at most 100').default(20),
    cursor: z
      .string()
      .max(2000)
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9]+$/, 'is not a cursor this service gave')
      .optional(),
    format: choice(['json', 'csv']).default('json'),
  })
  .superRefine(rangeChecks)
  .superRefine((p, ctx) => {
    if (p.sort === 'relevance' && !p.q) ctx.addIssue({ code: 'custom', path: ['sort'], message: 'relevance needs q' });
    if (!p.cursor && p.page * p.page_size > MAX_WINDOW)
      ctx.addIssue({ code: 'custom', path: ['page'], message: `pages end at ${MAX_WINDOW} hits; follow next_cursor beyond` });
  });
export type SearchParams = z.infer<typeof searchParams>;

/** What selects and orders hits: the parameters, or the list's (`contains` is its substring search). */
export interface SearchCriteria extends SearchFilters {
  q?: string;
  contains?: string;
  sort?: string;
}

const ci = (field: string, values: readonly string[]): estypes.QueryDslQueryContainer => ({
  bool: { should: values.map((value) => ({ term: { [field]: { value, case_insensitive: true } } })), minimum_should_match: 1 },
});
const not = (q: estypes.QueryDslQueryContainer): estypes.QueryDslQueryContainer => ({ bool: { must_not: [q] } });

function filtersOf(c: SearchCriteria): estypes.QueryDslQueryContainer[] {
  const f: estypes.QueryDslQueryContainer[] = [];
  const terms = (field: string, values?: readonly string[]) => values?.length && f.push({ terms: { [field]: [...values] } });
  terms('status', c.status);
  terms('type', c.type);
  terms('vendor_id', c.vendor_id);
  terms('created_by', c.owner);
  terms('currency', c.currency);
  if (c.counterparty?.length) f.push(ci('counterparty.exact', c.counterparty));
  if (c.governing_law?.length) f.push(ci('governing_law', c.governing_law));
  if (c.dispute_venue?.length) f.push(ci('dispute_venue', c.dispute_venue));
  for (const key of ['auto_renewal', 'termination_for_convenience', 'signature_pending'] as const)
    if (c[key] !== undefined) f.push({ term: { [key]: c[key] } });
  if (c.open_tasks !== undefined) f.push(c.open_tasks ? { range: { open_tasks: { gt: 0 } } } : not({ range: { open_tasks: { gt: 0 } } }));
  if (c.liability_cap) f.push({ term: { liability_cap_present: c.liability_cap === 'present' } });
  if (c.liability_cap_min !== undefined) f.push({ range: { liability_cap_amount: { gt: c.liability_cap_min } } });
  if (c.value_min !== undefined || c.value_max !== undefined) f.push({ range: { value: { gte: c.value_min, lte: c.value_max } } });
  if (c.payment_terms_days_min !== undefined || c.payment_terms_days_max !== undefined)
    f.push({ range: { payment_terms_days: { gte: c.payment_terms_days_min, lte: c.payment_terms_days_max } } });
  for (const d of DATE_RANGES) {
    const [from, to] = [c[`${d}_from`], c[`${d}_to`]];
    if (from || to) f.push({ range: { [d]: { gte: from, lte: to, format: 'yyyy-MM-dd' } } });
  }
  if (c.contains) f.push(containsQuery(c.contains));
  return f;
}

/**
 * The list's substring search in title and counterparty: the 3-gram field of this
 * generation's index (substrings.ts). An index of an older generation, which answers until
 * the rebuild moves the alias, has it only for documents written since, so there the old
 * leading wildcard answers; each branch is dropped before it runs where `_index` rules it out.
 */
function containsQuery(text: string): estypes.QueryDslQueryContainer {
  const current: estypes.QueryDslQueryContainer = { wildcard: { _index: { value: `*-v${GENERATION}` } } };
  const pattern = `*${text.toLowerCase().replace(/[\\*?]/g, '\\$&')}*`;
  const older: estypes.QueryDslQueryContainer = {
    bool: {
      should: ['title.raw', 'counterparty.raw'].map((field) => ({ wildcard: { [field]: { value: pattern } } })),
      minimum_should_match: 1,
    },
  };
  return {
    bool: {
      should: [{ bool: { filter: [current, substringQuery('substrings', text)] } }, { bool: { filter: [older], must_not: [current] } }],
      minimum_should_match: 1,
    },
  };
}

const HIGHLIGHT = { fragment_size: 160, number_of_fragments: 2 };
/** Fragments are HTML: the contract's text is escaped, and only the `<em>` around matches is markup. */
const HTML_FRAGMENTS: Pick<estypes.SearchHighlight, 'encoder' | 'pre_tags' | 'post_tags'> = {
  encoder: 'html',
  pre_tags: ['<em>'],
  post_tags: ['</em>'],
};

/** Full text: the contract's own fields, or the pages of its documents (which then cite document and page). */
function wordsQuery(q: string): estypes.QueryDslQueryContainer {
  return {
    bool: {
      should: [
        { multi_match: { query: q, fields: ['title^3', 'counterparty^2', 'content'], type: 'cross_fields', operator: 'and' } },
        {
          nested: {
            path: 'pages',
            score_mode: 'max',
            query: { match: { 'pages.text': { query: q, operator: 'and' } } },
            inner_hits: {
              size: 3,
              _source: { includes: ['pages.document_id', 'pages.page'] },
              highlight: { ...HTML_FRAGMENTS, fields: { 'pages.text': HIGHLIGHT } },
            },
          },
        },
      ],
      minimum_should_match: 1,
    },
  };
}

/** THE query of the index: the caller's organization, always, then the criteria. */
export function scopedQuery(organizationId: string, c: SearchCriteria): estypes.QueryDslQueryContainer {
  return {
    bool: {
      filter: [{ term: { organization_id: organizationId } }, ...filtersOf(c)],
      ...(c.q ? { must: [wordsQuery(c.q)] } : {}),
    },
  };
}

const SORT_FIELD: Record<Exclude<(typeof SORTS)[number], 'relevance'>, string> = {
  created_at: 'created_at',
  updated_at: 'updated_at',
  end_date: 'end_date',
  opt_out_deadline: 'opt_out_deadline',
  value: 'value',
  title: 'title.raw',
};

/** The sort, and its name (what a cursor was made for). Ties are broken by id, so the order is total. */
export function sortOf(c: SearchCriteria): { key: string; sort: estypes.SortCombinations[] } {
  const key = c.sort ?? (c.q ? 'relevance' : '-created_at');
  if (key === 'relevance') return { key, sort: ['_score', { id: 'asc' }] };
  const order = key.startsWith('-') ? 'desc' : 'asc';
  const field = SORT_FIELD[key.replace(/^-/, '') as keyof typeof SORT_FIELD];
  return { key, sort: [{ [field]: { order, missing: '_last' } }, { id: order }] };
}

export const highlightOf = (c: SearchCriteria): estypes.SearchHighlight | undefined =>
  c.q
    ? { ...HTML_FRAGMENTS, fields: { title: { number_of_fragments: 0 }, counterparty: { number_of_fragments: 0 }, content: HIGHLIGHT } }
    : undefined;

/**
 * Renewal windows on the opt-out deadline, counted from today (UTC): each bucket apart from the
 * others. Anchored on today's date rather than `now`, which would keep the facets out of the
 * shard request cache.
 */
function renewalWindows(today = dayOf(new Date())): Array<{ key: string; from?: string; to?: string }> {
  const day = (offset: number) => `${today}||+${offset}d`;
  return [
    { key: 'overdue', to: day(0) },
    { key: '30', from: day(0), to: day(30) },
    { key: '60', from: day(30), to: day(60) },
    { key: '90', from: day(60), to: day(90) },
    { key: 'later', from: day(90) },
  ];
}

/** Facets as aggregations: one shard, so terms counts are exact. */
export function facetAggs(facets: readonly Facet[]): Record<string, estypes.AggregationsAggregationContainer> {
  const terms = (field: string, size: number) => ({ terms: { field, size } });
  const all: Record<Facet, () => estypes.AggregationsAggregationContainer> = {
    status: () => terms('status', CONTRACT_STATUSES.length),
    type: () => terms('type', 100),
    counterparty: () => terms('counterparty.exact', TOP_COUNTERPARTIES),
    governing_law: () => terms('governing_law', 100),
    auto_renewal: () => terms('auto_renewal', 2),
    renewal_window: () => ({ date_range: { field: 'opt_out_deadline', keyed: false, ranges: renewalWindows() } }),
  };
  return Object.fromEntries(facets.map((f) => [f, all[f]()]));
}

/**
 * A cursor: the sort it was made for and the last hit's sort values, then a MAC (a key derived
 * from ENCRYPTION_KEY for this purpose) over them and the organization. Elasticsearch reads
 * the values as the sort's types, so only values this service produced may reach it: anything
 * else (a string for a date, say) would fail the search.
 */
const cursorMac = (config: Pick<Config, 'ENCRYPTION_KEY'>, organizationId: string, body: string) =>
  derivedSecret(config, 'search-cursor', `${organizationId}.${body}`);

export function encodeCursor(config: Pick<Config, 'ENCRYPTION_KEY'>, organizationId: string, key: string, values: estypes.FieldValue[]) {
  const body = Buffer.from(JSON.stringify({ k: key, v: values })).toString('base64url');
  return `${body}.${cursorMac(config, organizationId, body)}`;
}

/** The sort values of a genuine cursor of this organization and sort; null for anything else. */
export function decodeCursor(
  config: Pick<Config, 'ENCRYPTION_KEY'>,
  organizationId: string,
  cursor: string,
  key: string,
): estypes.FieldValue[] | null {
  const [body, mac, ...rest] = cursor.split('.');
  if (!body || !mac || rest.length || !safeEqual(mac, cursorMac(config, organizationId, body))) return null;
  try {
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString()) as { k?: unknown; v?: unknown };
    if (parsed.k !== key || !Array.isArray(parsed.v) || parsed.v.length !== 2) return null;
    const values: unknown[] = parsed.v;
    return values.every((v): v is estypes.FieldValue => ['string', 'number', 'boolean'].includes(typeof v) || v === null) ? values : null;
  } catch {
    return null;
  }
}
