/** The mail feature's own error codes: who may mail people outside the organization, and how many. */
import { defineErrors } from '../../platform/errors';

export const mailErrors = defineErrors({
  email_not_verified: {
    status: 403,
    meaning:
      "The organization mails nobody else until an owner's email address is verified (POST /auth/email/verify with the mailed link's token; POST /auth/email/verify/resend sends another)",
  },
  mail_quota_exceeded: {
    status: 429,
    meaning: 'The organization mailed MAIL_RECIPIENTS_PER_ORG_PER_DAY addresses in 24 hours; wait `Retry-After` seconds',
  },
  mail_not_retryable: { status: 409, meaning: 'Only a failed message can be retried' },
});
