/** Ending a signature request from the service side (its sender, or the deletion of its contract). */
import type { Types } from 'mongoose';
import type { Services } from '../../platform/services';
import type { SignatureRecord } from '../../models/signature';
import { changeWithAudit } from './change-with-audit';
import { cancelSignal } from '../../workflows/signature.shared';

const TEMPORAL_DEADLINE_MS = 5000;

/**
 * Cancels a pending request: the stored change with its audit entry first (so every signing
 * link answers 410 at once), then a signal to its workflow, best effort (the workflow also
 * reads the stored status on its next timer). Null when the request was no longer pending.
 */
export async function cancelSignatureRequest(s: Services, id: Types.ObjectId | string, by: string, detail?: string): Promise<SignatureRecord | null> {
  const done = await changeWithAudit(id, { status: 'pending' }, () => ({
    entry: { type: 'cancelled', at: new Date().toISOString(), name: by, ...(detail ? { detail } : {}) },
    set: () => ({ status: 'cancelled' }),
  }));
  if (!done) return null;
  await s.temporalConnection
    .withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () => s.temporal.workflow.getHandle(`signature-${done.sig.id}`).signal(cancelSignal, { reason: detail ?? `cancelled by ${by}` }))
    .catch((err: unknown) => s.logger.warn({ err, signatureId: done.sig.id }, 'could not signal cancel; the workflow catches up from the store'));
  return done.sig;
}
