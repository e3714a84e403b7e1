/**
 * A reminder round of a signature request: whoever still has to sign is mailed (in an
 * ordered request only the signer whose turn it is), with a `reminded` audit entry. Answers
 * with the request as stored, so the workflow can catch up on acts whose signal was lost.
 */
import type { Services } from '../../platform/engines';
import { Signature } from '../../models/signature';
import { mailSignatureReminders, signersDue } from '../mail/signatures';
import type { StoredSignatureState } from '../../workflows/signature.shared';
import { changeWithAudit } from './change-with-audit';

/** `round` names the round, so a retried round queues nothing twice. Null when the request is gone. */
export async function remindSigners(s: Services, signatureId: string, round: string): Promise<StoredSignatureState | null> {
  const stored = await Signature.findById(signatureId);
  if (!stored) return null;
  const state: StoredSignatureState = {
    status: stored.status,
    signers: stored.signers.map((x) => ({ id: String(x._id), status: x.status })),
  };
  if (stored.status !== 'pending') return state;
  const due = signersDue(stored);
  if (due.length === 0) return state;
  await mailSignatureReminders(s, stored, due, round);
  await changeWithAudit(stored._id, { status: 'pending' }, () => ({
    entry: { type: 'reminded', at: new Date().toISOString(), detail: due.map((d) => d.email).join(', ') },
  }));
  return state;
}
