/** The signature feature's own error codes (platform/errors.ts `defineErrors`). */
import { defineErrors } from '../../platform/errors';

export const signatureErrors = defineErrors({
  signing_link_used: { status: 410, meaning: 'The signing link was already used to sign or to decline' },
  signing_link_expired: { status: 410, meaning: 'The signature request expired before this signer acted' },
  signature_request_closed: { status: 410, meaning: 'The signature request is completed, declined or cancelled' },
  signed_copy_expired: {
    status: 410,
    meaning: "The signed PDF's download through a signer's link ended SIGNED_COPY_DAYS after the request was completed",
  },
  signer_not_next: { status: 409, meaning: 'In an ordered request an earlier signer has not signed yet' },
  signature_request_not_pending: { status: 409, meaning: 'Only a pending signature request can be cancelled' },
  signed_pdf_not_ready: { status: 409, meaning: 'The signed PDF is not sealed yet, or its sealing failed' },
  seal_not_retryable: { status: 409, meaning: 'Only a completed request whose sealing failed can be sealed again' },
});
