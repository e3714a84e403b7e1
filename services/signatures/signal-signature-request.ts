/** What the service side asks of a running signature request: to end it, or to seal again. */
import type { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { Signature, type SignatureRecord } from '../../models/signature';
import type { Principal } from '../../platform/security/principal';
import { getSignatureRequest } from './list-signatures';
import { changeWithAudit } from './change-with-audit';
import { unavailable } from '../../platform/errors';
import { signatureErrors } from './errors';
import { cancelSignal, retrySealSignal, signatureWorkflowId } from '../../workflows/signature.shared';
import { signalWorkflow } from '../../platform/temporal/client';
import { makeContractsSearchable } from '../search/reflect-contracts';

/**
 * Cancels a pending request: the stored change with its audit entry first (so every signing
 * link answers 410 at once), then a signal to its workflow, best effort (the workflow also
 * reads the stored status on its next timer). Null when the request was no longer pending.
 */
export async function cancelSignatureRequest(
  s: Engines,
  id: Types.ObjectId | string,
  by: string,
  detail?: string,
): Promise<SignatureRecord | null> {
  const done = await changeWithAudit(id, { status: 'pending' }, () => ({
    entry: { type: 'cancelled', at: new Date().toISOString(), name: by, ...(detail ? { detail } : {}) },
    set: () => ({ status: 'cancelled' }),
  }));
  if (!done) return null;
  await signalWorkflow(s, signatureWorkflowId(done.sig.id), cancelSignal, { reason: detail ?? `cancelled by ${by}` }).catch(
    (err: unknown) => s.logger.warn({ err, signatureId: done.sig.id }, 'could not signal cancel; the workflow catches up from the store'),
  );
  return done.sig;
}

/** A member cancels a pending request of their organization. */
export async function cancelOwnedSignatureRequest(s: Engines, p: Principal, id: unknown): Promise<SignatureRecord> {
  const sig = await getSignatureRequest(p, id);
  const cancelled = await cancelSignatureRequest(s, sig._id, p.name);
  // No event tells of a cancel: its contract is searchable as no longer awaiting signature before the answer.
  if (cancelled) {
    await makeContractsSearchable(s, p.organizationId, [cancelled.contract_id.toHexString()]);
    return cancelled;
  }
  const now = (await Signature.findById(sig._id, { status: 1 }).lean())?.status ?? sig.status;
  throw signatureErrors.signature_request_not_pending(`The signature request is already ${now}`);
}

/** Asks the workflow to seal again a completed request whose sealing failed. */
export async function retrySealing(s: Engines, p: Principal, id: unknown): Promise<SignatureRecord> {
  const sig = await getSignatureRequest(p, id);
  if (sig.status !== 'completed' || sig.sealed_at || !sig.sealing_error)
    throw signatureErrors.seal_not_retryable(
      sig.sealed_at ? 'The signed PDF is already sealed' : 'Only a completed request whose sealing failed can be retried',
    );
  await signalWorkflow(s, signatureWorkflowId(sig.id), retrySealSignal).catch((err: unknown) => {
    s.logger.error({ err, signatureId: sig.id }, 'could not signal the sealing retry');
    throw unavailable('The workflow engine is unavailable; try again shortly');
  });
  return sig;
}
