/** Reading vendors: one by id, and the list, by status and risk level, with a search in name and category. */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { listPage } from '../../platform/lists/list-index';
import { choice } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { containsText } from '../../platform/text-search';
import { RISK_LEVELS } from '../../models/contract';
import { VENDOR_STATUSES, Vendor, vendorList, type VendorDoc } from '../../models/vendor';

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

/** A vendor of the caller's organization (404 for any other): what every use case on one vendor starts from. */
export const getVendor = (p: Pick<Principal, 'organizationId'>, id: unknown): Promise<VendorDoc> => findOwned(Vendor, p, id, 'Vendor');

/** A page of the organization's vendors and its exact total. */
export function listVendors(s: Engines, p: Pick<Principal, 'organizationId'>, q: z.infer<typeof listQuery>) {
  return listPage(s, vendorList, p.organizationId, vendorListFilter(q), q);
}
