/** The contract feature's own error codes (platform/errors.ts `defineErrors`). */
import { defineErrors } from '../../platform/errors';

export const contractErrors = defineErrors({
  contract_has_pending_signature: {
    status: 409,
    meaning:
      "A pending signature request signs the contract's document as sent: its content, PDF of record and the facts approval policies read (type, value, currency, counterparty, vendor, key terms) stay until it ends",
  },
});
