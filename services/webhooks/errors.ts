/** What a webhook request can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const webhookErrors = defineErrors({
  webhook_url_refused: { status: 400, meaning: 'The URL is not http(s) or does not resolve to a public address' },
  webhook_subscription_limit: { status: 409, meaning: 'The organization has the most subscriptions allowed; remove one first' },
  delivery_not_retryable: { status: 409, meaning: 'Only a failed delivery can be retried' },
  delivery_already_retried: { status: 409, meaning: 'The delivery was already retried once' },
  webhook_subscription_inactive: { status: 409, meaning: "The delivery's subscription was removed or disabled" },
});
