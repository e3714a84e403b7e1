/** The `Idempotency-Key` header's own error codes (platform/errors.ts `defineErrors`). */
import { defineErrors } from '../../platform/errors';

export const idempotencyErrors = defineErrors({
  idempotency_key_invalid: { status: 400, meaning: 'The `Idempotency-Key` is not 1 to 255 visible ASCII characters' },
  idempotency_key_reused: { status: 409, meaning: 'The `Idempotency-Key` was already used for a different request' },
  idempotency_key_in_flight: { status: 409, meaning: 'A request with this `Idempotency-Key` is still in progress; retry shortly' },
});
