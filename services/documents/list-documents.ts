/** Reading documents: one by id, and the list, by category, status and contract. */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { objectId } from '../../platform/input';
import { listPage } from '../../platform/lists/list-index';
import { pageQuery } from '../../platform/lists/pagination';
import { DOCUMENT_CATEGORIES, DOCUMENT_STATUSES, Document, documentList, type DocumentDoc } from '../../models/document';

export const listQuery = pageQuery.extend({
  category: z.enum(DOCUMENT_CATEGORIES).optional(),
  status: z.enum(DOCUMENT_STATUSES).optional(),
  contract_id: objectId('must be a contract id').optional(),
});

/** A document of the caller's organization (404 for any other): what every use case on one document starts from. */
export const getDocument = (p: Pick<Principal, 'organizationId'>, id: unknown): Promise<DocumentDoc> =>
  findOwned(Document, p, id, 'Document');

/** A page of the organization's documents and its exact total. */
export function listDocuments(s: Engines, p: Pick<Principal, 'organizationId'>, q: z.infer<typeof listQuery>) {
  const equal = Object.fromEntries((['category', 'status', 'contract_id'] as const).filter((f) => q[f]).map((f) => [f, q[f]]));
  return listPage(s, documentList, p.organizationId, { equal }, q);
}
