/**
 * A contract while a signature request is pending: the request signs what it froze, judged on
 * the facts its approvals covered, so changing the contract's `content` or `document_id`, or a
 * fact an approval policy reads (type, value, currency, counterparty, vendor, key terms),
 * meanwhile is refused (409 `contract_has_pending_signature`) rather than leaving the contract
 * and the request saying different things. Cancelling the request, or its end, lifts the refusal.
 * Contracts read the signature records here rather than ask services/signatures, which builds on contracts.
 */
import { trusted, type Types } from 'mongoose';
import { Signature } from '../../models/signature';
import { contractErrors } from './errors';

/** Throws 409 when `changed` (the fields that really change) is not empty and the contract has a pending request. */
export async function refuseChangeWhileSigning(
  contract: { _id: Types.ObjectId; organization_id: Types.ObjectId },
  changed: readonly string[],
): Promise<void> {
  if (!changed.length) return;
  const pending = await Signature.findOne(
    { organization_id: contract.organization_id, contract_id: contract._id, status: 'pending', expires_at: trusted({ $gt: new Date() }) },
    { _id: 1 },
  ).lean();
  if (pending)
    throw contractErrors.contract_has_pending_signature(
      `${changed.join(', ')}: signature request ${String(pending._id)} is pending and signs the contract as it was sent, on the facts its approvals were judged on; cancel it (POST /signatures/${String(pending._id)}/cancel) or let it end before changing the contract's content, PDF of record or the facts approval policies read`,
    );
}
