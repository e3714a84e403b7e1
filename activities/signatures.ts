/**
 * What the signature workflow does to the world: reminders, expiry and completion.
 * Each step is guarded by the request's stored status, so a retried activity repeats
 * nothing (a completed request is never completed twice).
 */
import { Context } from '@temporalio/activity';
import type { Services } from '../platform/engines';
import { mailSignatureReminders, signersDue } from '../services/mail/signatures';
import { recordEvent } from '../platform/outbox/record-event';
import { Signature } from '../models/signature';
import { changeWithAudit } from '../services/signatures/change-with-audit';
import { completeSignatureRequest } from '../services/signatures/complete-signature-request';
import type { StoredSignatureState } from '../workflows/signature.shared';
import { recordSealingError, renderSignedPdf, sealSignedPdf } from '../services/signatures/signed-pdf-store';

const pending = { status: 'pending' } as const;

export function createSignatureActivities(s: Services) {
  return {
    /** Reminds whoever still has to sign, and answers with the stored state so the workflow can catch up. */
    async sendSignatureReminders({ signatureId }: { signatureId: string }): Promise<StoredSignatureState | null> {
      const stored = await Signature.findById(signatureId);
      if (!stored) return null;
      const state: StoredSignatureState = {
        status: stored.status,
        signers: stored.signers.map((x) => ({ id: String(x._id), status: x.status })),
      };
      const sig = stored.status === 'pending' ? stored : null;
      if (!sig) return state;
      // In an ordered request only the signer whose turn it is is reminded.
      const due = signersDue(sig);
      if (due.length === 0) return state;
      // The scheduled activity's id names the round: a retry of it queues nothing twice.
      const { workflowExecution, activityId } = Context.current().info;
      await mailSignatureReminders(s, sig, due, `${workflowExecution?.runId ?? ''}:${activityId}`);
      await changeWithAudit(sig._id, pending, () => ({
        entry: { type: 'reminded', at: new Date().toISOString(), detail: due.map((d) => d.email).join(', ') },
      }));
      return state;
    },

    async expireSignatureRequest({ signatureId }: { signatureId: string }): Promise<void> {
      const closed = await changeWithAudit(signatureId, pending, () => ({
        entry: { type: 'expired', at: new Date().toISOString() },
        set: () => ({ status: 'expired' }),
      }));
      if (!closed) return;
      const { sig } = closed;
      await recordEvent({
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
    },

    /** Closes the request with its certificate once everyone has signed (services/signatures/complete-signature-request.ts). */
    async completeSignatureRequest({ signatureId }: { signatureId: string }): Promise<void> {
      await completeSignatureRequest(s, signatureId);
    },

    /** The signed document and its evidence pages as PDF, stored unsealed (services/signatures/signed-pdf-store.ts). */
    async renderSignedPdf({ signatureId }: { signatureId: string }): Promise<string> {
      return renderSignedPdf(signatureId);
    },

    async sealSignedPdf({ signatureId }: { signatureId: string }): Promise<void> {
      const r = await sealSignedPdf(s, signatureId);
      s.logger.info({ signatureId, sizeBytes: r.size_bytes, ms: r.ms }, 'signed PDF sealed');
    },

    /** Sealing gave up: the request shows why until an operator retries (POST /signatures/:id/seal). */
    async recordSealingError({ signatureId, error }: { signatureId: string; error: string }): Promise<void> {
      await recordSealingError(signatureId, error);
    },
  };
}

export type SignatureActivities = ReturnType<typeof createSignatureActivities>;
