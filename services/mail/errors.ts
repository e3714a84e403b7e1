/** What mail requests can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const mailErrors = defineErrors({
  mail_not_retryable: { status: 409, meaning: 'Only a failed message can be retried' },
});
