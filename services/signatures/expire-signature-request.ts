/**
 * A signature request whose deadline passed while still pending is closed as expired, with
 * its audit entry, and `signature.expired` is told. Guarded by the stored status: a request
 * completed, declined or cancelled meanwhile stays as it is, and a retry tells nothing twice.
 */
import { recordEvent, type EventRecorder } from '../../platform/outbox/record-event';
import { changeWithAudit } from './change-with-audit';

export async function expireSignatureRequest(s: EventRecorder, signatureId: string): Promise<void> {
  const closed = await changeWithAudit(signatureId, { status: 'pending' }, () => ({
    entry: { type: 'expired', at: new Date().toISOString() },
    set: () => ({ status: 'expired' }),
  }));
  if (!closed) return;
  const { sig } = closed;
  await recordEvent(s, {
    organizationId: String(sig.organization_id),
    type: 'signature.expired',
    data: {
      signature_id: signatureId,
      contract_id: String(sig.contract_id),
      contract_title: sig.contract_title,
      expires_at: sig.expires_at.toISOString(),
    },
    actor: { type: 'system', id: null, name: 'signature deadline' },
    resource: { type: 'signature', id: signatureId },
    summary: `Signature request for "${sig.contract_title}" expired`,
  });
}
