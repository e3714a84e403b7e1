/** The signature feature's own error codes (platform/errors.ts `defineErrors`). */
import { defineErrors } from '../../platform/errors';

export const signatureErrors = defineErrors({
  contract_has_pending_signature: {
    status: 409,
    meaning: "A pending signature request signs the contract's document as sent: its content and PDF of record stay until it ends",
  },
});
