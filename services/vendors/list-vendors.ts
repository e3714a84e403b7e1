/** The vendor list's query: filters by status and risk level, and a search in name and category. */
import { z } from 'zod';
import { choice } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { containsText } from '../../platform/text-search';
import { RISK_LEVELS } from '../../models/contract';
import { VENDOR_STATUSES } from '../../models/vendor';

export const listQuery = pageQuery.extend({
  status: choice(VENDOR_STATUSES).optional(),
  risk_level: choice(RISK_LEVELS).optional(),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional(),
});

/** The list's filter for a query (the search matches name or category). */
export function vendorListFilter(q: Pick<z.infer<typeof listQuery>, 'status' | 'risk_level' | 'search'>): ListFilter {
  return {
    equal: { ...(q.status ? { status: q.status } : {}), ...(q.risk_level ? { risk_level: q.risk_level } : {}) },
    ...(q.search ? { where: { $or: [{ name: containsText(q.search) }, { category: containsText(q.search) }] } } : {}),
  };
}
