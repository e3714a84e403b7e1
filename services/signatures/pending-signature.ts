/**
 * A contract's document while a signature request is pending: the request signs what it
 * froze, so changing the contract's `content` or `document_id` meanwhile is refused (409
 * `contract_has_pending_signature`) rather than leaving the contract and the request saying
 * different things. Cancelling the request, or its end, lifts the refusal.
 */
import { trusted, type Types } from 'mongoose';
import { Signature } from '../../models/signature';
import { signatureErrors } from './errors';

interface ContractDocument {
  _id: Types.ObjectId;
  organization_id: Types.ObjectId;
  content: string;
  document_id?: Types.ObjectId | null;
}

/** Throws 409 when `changes` alters the document of a contract with a pending request; a field sent unchanged is no change. */
export async function refuseDocumentChangeWhileSigning(
  contract: ContractDocument,
  changes: { content?: string; document_id?: string | null },
): Promise<void> {
  const changed = [
    changes.content !== undefined && changes.content !== contract.content ? 'content' : null,
    changes.document_id !== undefined && changes.document_id !== (contract.document_id?.toHexString() ?? null) ? 'document_id' : null,
  ].filter(Boolean);
  if (!changed.length) return;
  const pending = await Signature.findOne(
    { organization_id: contract.organization_id, contract_id: contract._id, status: 'pending', expires_at: trusted({ $gt: new Date() }) },
    { _id: 1 },
  ).lean();
  if (pending)
    throw signatureErrors.contract_has_pending_signature(
      `${changed.join(', ')}: signature request ${String(pending._id)} is pending and signs the document as it was sent; cancel it (POST /signatures/${String(pending._id)}/cancel) or let it end before changing the contract's content or PDF of record`,
    );
}
