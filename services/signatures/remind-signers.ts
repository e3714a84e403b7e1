/**
 * A reminder round of a signature request: whoever still has to sign is mailed (in an
 * ordered request only the signer whose turn it is), with a `reminded` audit entry. Answers
 * with the request as stored, so the workflow can catch up on acts whose signal was lost.
 *
 * Reminders mail people outside the organization, so they are bounded: at most
 * SIGNATURE_REMINDERS_MAX rounds per request (counted on its audit trail, whatever the
 * workflow believes), and each round takes its recipients from the organization's daily mail
 * quota; a round that does not fit is skipped, not retried.
 */
import type { Engines } from '../../platform/engines';
import { Signature, type SignatureRecord } from '../../models/signature';
import { mailSignatureReminders, reminderRoundQueued, signersDue } from './signature-mail';
import { takeMailQuota } from '../mail/reserve-recipients';
import type { StoredSignatureState } from '../../workflows/signature.shared';
import { changeWithAudit } from './change-with-audit';

const stateOf = (stored: SignatureRecord): StoredSignatureState => ({
  status: stored.status,
  signers: stored.signers.map((x) => ({ id: String(x._id), status: x.status })),
});

/** The request's state as stored, for a workflow tick that mails nobody; null when the request is gone. */
export async function readSignatureState(signatureId: string): Promise<StoredSignatureState | null> {
  const stored = await Signature.findById(signatureId);
  return stored && stateOf(stored);
}

/** `round` names the round, so a retried round queues nothing twice. Null when the request is gone. */
export async function remindSigners(s: Engines, signatureId: string, round: string): Promise<StoredSignatureState | null> {
  const stored = await Signature.findById(signatureId);
  if (!stored) return null;
  const state = stateOf(stored);
  if (stored.status !== 'pending') return state;
  const due = signersDue(stored);
  if (due.length === 0) return state;
  const rounds = stored.audit_trail.filter((e) => e.type === 'reminded').length;
  if (rounds >= s.config.SIGNATURE_REMINDERS_MAX) return state;
  // A retried round took its quota when it first queued its mail.
  if (!(await reminderRoundQueued(stored, due, round))) {
    const taken = await takeMailQuota(s, String(stored.organization_id), due.length);
    if (!taken.ok) {
      s.logger.warn({ signatureId, recipients: due.length }, "reminder round skipped: the organization's daily mail quota is spent");
      return state;
    }
  }
  await mailSignatureReminders(s, stored, due, round);
  await changeWithAudit(stored._id, { status: 'pending' }, () => ({
    entry: { type: 'reminded', at: new Date().toISOString(), detail: due.map((d) => d.email).join(', ') },
  }));
  return state;
}
