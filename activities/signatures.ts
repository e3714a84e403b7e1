/**
 * What the signature workflow does to the world: reminders, expiry and completion.
 * Each step is guarded by the request's stored status, so a retried activity repeats
 * nothing (a completed request is never completed twice).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import { readSignatureState, remindSigners } from '../services/signatures/remind-signers';
import { expireSignatureRequest } from '../services/signatures/expire-signature-request';
import { completeSignatureRequest } from '../services/signatures/complete-signature-request';
import type { StoredSignatureState } from '../workflows/signature.shared';
import { recordSealingError, renderSignedPdf, sealSignedPdf, SignedPdfTooLargeError } from '../services/signatures/signed-pdf-store';
import { PdfOfRecordChangedError } from '../services/signatures/pdf-of-record';

export function createSignatureActivities(s: Engines) {
  return {
    /** Reminds whoever still has to sign (services/signatures/remind-signers.ts); the stored state lets the workflow catch up. */
    async sendSignatureReminders({ signatureId }: { signatureId: string }): Promise<StoredSignatureState | null> {
      // The scheduled activity's id names the round: a retry of it queues nothing twice.
      const { workflowExecution, activityId } = Context.current().info;
      return remindSigners(s, signatureId, `${workflowExecution?.runId ?? ''}:${activityId}`);
    },

    /** The request as stored, for a tick past the last reminder round: nobody is mailed. */
    async readSignatureState({ signatureId }: { signatureId: string }): Promise<StoredSignatureState | null> {
      return readSignatureState(signatureId);
    },

    async expireSignatureRequest({ signatureId }: { signatureId: string }): Promise<void> {
      await expireSignatureRequest(signatureId);
    },

    /** Closes the request with its certificate once everyone has signed (services/signatures/complete-signature-request.ts). */
    async completeSignatureRequest({ signatureId }: { signatureId: string }): Promise<void> {
      await completeSignatureRequest(s, signatureId);
    },

    /** The signed document and its evidence pages as PDF, stored unsealed (services/signatures/signed-pdf-store.ts). */
    async renderSignedPdf({ signatureId }: { signatureId: string }): Promise<string> {
      try {
        return await renderSignedPdf(signatureId);
      } catch (err) {
        // The same request fails the same way on every try: no retries.
        if (err instanceof PdfOfRecordChangedError) throw ApplicationFailure.nonRetryable(err.message, 'PdfOfRecordChanged');
        if (err instanceof SignedPdfTooLargeError) throw ApplicationFailure.nonRetryable(err.message, 'SignedPdfTooLarge');
        throw err;
      }
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
