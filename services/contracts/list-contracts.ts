/**
 * The contract list (`GET /contracts`): filters by status and type, and a search in title and
 * counterparty (a case-insensitive substring), answered by the repository search index like
 * `GET /search/contracts`, in the list's order (newest first). While Elasticsearch is
 * unreachable the store answers (through the list index where there is one), so the list a
 * person works from does not go down with search.
 */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { choice } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { containsText } from '../../platform/text-search';
import { CONTRACT_STATUSES, contractList } from '../../models/contract';
import { contractListPage } from '../search/search-contracts';
import { MAX_WINDOW } from '../search/contract-search-index';
import { badRequest, isAppError } from '../../platform/errors';
import { searchErrors } from '../search/errors';
import { listPage } from '../../platform/lists/list-index';

export const listQuery = pageQuery.extend({
  status: choice(CONTRACT_STATUSES).optional(),
  type: z
    .string()
    .regex(/^[a-z_]{1,50}$/, 'must be a contract type such as nda')
    .optional(),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional(),
});

/** A page of the list and its exact total. */
export async function listContracts(
  s: Pick<Engines, 'es' | 'config' | 'redis' | 'logger'>,
  p: Pick<Principal, 'organizationId'>,
  q: z.infer<typeof listQuery>,
) {
  const { organizationId } = p;
  if (q.page * q.page_size > MAX_WINDOW) throw badRequest(`page: pages end at ${MAX_WINDOW} contracts; narrow the list with filters`);
  try {
    return await contractListPage(
      s,
      organizationId,
      {
        ...(q.status ? { status: [q.status] } : {}),
        ...(q.type ? { type: [q.type] } : {}),
        ...(q.search ? { contains: q.search } : {}),
      },
      q,
    );
  } catch (err) {
    if (!isAppError(err, searchErrors.search_unavailable)) throw err;
    s.logger.warn({ organizationId }, 'search index unreachable; the store answers the contract list');
    return listPage(s, contractList, organizationId, contractListFilter(q), q);
  }
}

/** The same query for the store (the Redis list index's and the list tests' comparison). */
export function contractListFilter(q: Pick<z.infer<typeof listQuery>, 'status' | 'type' | 'search'>): ListFilter {
  return {
    equal: { ...(q.status ? { status: q.status } : {}), ...(q.type ? { type: q.type } : {}) },
    ...(q.search
      ? { where: { $or: [{ title: containsText(q.search) }, { counterparty: containsText(q.search) }] }, search: q.search }
      : {}),
  };
}
