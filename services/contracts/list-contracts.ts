/** The contract list's query: filters by status and type, and a search in title and counterparty. */
import { z } from 'zod';
import { choice } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { containsText } from '../../platform/text-search';
import { CONTRACT_STATUSES } from '../../models/contract';

export const listQuery = pageQuery.extend({
  status: choice(CONTRACT_STATUSES).optional(),
  type: z
    .string()
    .regex(/^[a-z_]{1,50}$/, 'must be a contract type such as nda')
    .optional(),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional(),
});

/** The list's filter for a query (the search matches title or counterparty). */
export function contractListFilter(q: Pick<z.infer<typeof listQuery>, 'status' | 'type' | 'search'>): ListFilter {
  return {
    equal: { ...(q.status ? { status: q.status } : {}), ...(q.type ? { type: q.type } : {}) },
    ...(q.search
      ? { where: { $or: [{ title: containsText(q.search) }, { counterparty: containsText(q.search) }] }, search: q.search }
      : {}),
  };
}
