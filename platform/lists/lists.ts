/**
 * The paginated lists of the interface (contracts, vendors, documents, signatures,
 * compliance tasks, webhook deliveries, activity, outgoing mail): what each filters on and how it is
 * ordered, and the store query that answers a page of one.
 *
 * Each list's model declares a compound index for every query this builds:
 * (organization_id, [one equality filter], sort field, _id), so on MongoDB a page is an
 * index walk (test/component/platform/list-queries.test.ts checks the cover). FerretDB 1.24 pushes only the
 * equality filters down to PostgreSQL (where scripts/ferretdb/pushdown-indexes.sql gives
 * them an index); it sorts, skips and counts itself.
 */
import type { Model, QueryFilter, SortOrder } from 'mongoose';
import { orgFilter } from '../../models/base';
import { skipOf, type PageQuery } from './pagination';

// mongoose's Model types are invariant in their document: no common supertype but this one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ListModel = Model<any>;
/** The hydrated record type of a list's model. */
export type ListDoc<M extends ListModel> = InstanceType<M>;

export interface ListSpec<M extends ListModel = ListModel> {
  /** The list's name, as in its route. */
  name: string;
  model: M;
  /** The equality filters the list's query string may set: fields of the record. */
  filters: readonly string[];
  /** The interface's order: this field, then `_id`, both in `order`. */
  sort: { field: string; order: 1 | -1 };
  /** The item the list answers for a record. */
  row(doc: ListDoc<M>): unknown;
  /**
   * Filters computed from a record, for conditions the store answers otherwise (a group
   * of event types is `$in` there): platform/lists/list-index.ts keeps them like `filters`.
   */
  derived?: Record<string, (doc: ListDoc<M>) => string | null>;
  /**
   * The text a list's `search` matches, for platform/lists/list-index.ts to answer a search
   * itself: the fields the store's search reads, joined by NUL (which no search holds).
   */
  searchText?: (doc: NoInfer<ListDoc<M>>) => string;
}

export function defineList<M extends ListModel>(spec: ListSpec<M>): ListSpec<M> {
  return spec;
}

/** The full sort of a list: its field, then `_id` in the same direction (a stable order). */
export const sortOf = (spec: Pick<ListSpec, 'sort'>): Record<string, SortOrder> => ({
  [spec.sort.field]: spec.sort.order,
  _id: spec.sort.order,
});

export interface ListFilter {
  /** Values for some of the spec's `filters`. */
  equal?: Record<string, unknown>;
  /** Conditions no equality expresses (a search, a group of event types). */
  where?: QueryFilter<unknown>;
  /** `where` as values of the spec's `derived` filters, when it can be said so. */
  derived?: Record<string, string>;
  /**
   * `where` as a search: a case-insensitive substring of the spec's `searchText`, when it can
   * be said so (then `where` is that search and nothing else).
   */
  search?: string;
}

/** The page and total queries the store runs for one page of a list. */
export function listQueries<M extends ListModel>(spec: ListSpec<M>, organizationId: string, filter: ListFilter, page: PageQuery) {
  for (const field of Object.keys(filter.equal ?? {})) {
    if (!spec.filters.includes(field)) throw new Error(`${spec.name}: ${field} is not one of its filters`);
  }
  const where: QueryFilter<unknown> = { ...orgFilter(organizationId), ...filter.equal, ...filter.where };
  const items = spec.model.find(where).sort(sortOf(spec)).limit(page.page_size);
  // No `skip: 0`: FerretDB's explain refuses the int the driver sends for it.
  const skip = skipOf(page);
  return { items: skip ? items.skip(skip) : items, total: spec.model.countDocuments(where) };
}

/** One page of a list (its items) and its total, from the store. */
export async function storePage<M extends ListModel>(
  spec: ListSpec<M>,
  organizationId: string,
  filter: ListFilter,
  page: PageQuery,
): Promise<ListPage> {
  const q = listQueries(spec, organizationId, filter, page);
  const [docs, total] = await Promise.all([q.items.exec() as Promise<ListDoc<M>[]>, q.total.exec()]);
  return { items: docs.map((d) => spec.row(d)), total };
}

export interface ListPage {
  items: unknown[];
  total: number;
}
