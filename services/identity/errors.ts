/** The identity feature's own error codes (API keys, organization-wide limits, email verification). */
import { defineErrors } from '../../platform/errors';

export const identityErrors = defineErrors({
  api_key_limit_reached: {
    status: 409,
    meaning: 'The organization holds API_KEYS_PER_ORG keys, the most allowed; revoke one first',
  },
  organization_rate_limited: {
    status: 429,
    meaning: "The organization's principals together used its requests for this minute; wait `Retry-After` seconds",
  },
  email_verification_invalid: {
    status: 400,
    meaning: 'The email verification token is unknown, used or expired; ask for a new link',
  },
  email_already_verified: { status: 409, meaning: "The caller's email address is already verified" },
});
