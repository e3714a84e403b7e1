/** Reading signature requests: one by id, a page of them (by status or contract), and the signed PDF of one. */
import { Types } from 'mongoose';
import type { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { choice, idSchema } from '../../platform/input';
import { listPage } from '../../platform/lists/list-index';
import { pageQuery } from '../../platform/lists/pagination';
import { SIGNATURE_STATUSES, Signature, signatureList, type SignatureRecord } from '../../models/signature';
import { signedPdfFor } from './signed-pdf-store';

export const listQuery = pageQuery.extend({
  status: choice(SIGNATURE_STATUSES).optional(),
  contract_id: idSchema.optional(),
});

export const getSignatureRequest = (p: Pick<Principal, 'organizationId'>, id: unknown): Promise<SignatureRecord> =>
  findOwned(Signature, p, id, 'Signature request');

/** A page of the organization's requests and its exact total. */
export function listSignatureRequests(s: Engines, p: Pick<Principal, 'organizationId'>, q: z.infer<typeof listQuery>) {
  const equal = {
    ...(q.status ? { status: q.status } : {}),
    ...(q.contract_id ? { contract_id: new Types.ObjectId(q.contract_id) } : {}),
  };
  return listPage(s, signatureList, p.organizationId, { equal }, q);
}

/** The sealed PDF of a completed request, with the request's id to name the file. */
export async function getSignedPdf(p: Pick<Principal, 'organizationId'>, id: unknown) {
  const sig = await getSignatureRequest(p, id);
  return { signatureId: sig.id, ...(await signedPdfFor(sig)) };
}
