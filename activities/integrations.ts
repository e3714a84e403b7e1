/**
 * Integration activities: delivery of one chat notification (services/integrations/send-notification.ts).
 * Vendor answers decide the retry: 429 waits for the vendor's Retry-After, 5xx and network
 * failures back off, other 4xx (revoked webhook, rejected payload) are not retried.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Services } from '../platform/services';
import { VendorError } from '../services/integrations/connector';
import { sendNotification } from '../services/integrations/send-notification';
import { UrlPolicyError } from '../platform/security/url-policy';
import type { NotificationInput } from '../workflows/integration-notification.shared';

/** The Temporal failure for an error of a vendor call: when (and whether) to try again. */
export function retryFailure(err: unknown): unknown {
  if (err instanceof VendorError) {
    if (err.rateLimited) {
      return ApplicationFailure.create({ message: err.message, type: 'VendorRateLimited', nextRetryDelay: err.retryAfterMs ?? undefined });
    }
    if (err.retryable) return ApplicationFailure.retryable(err.message, 'VendorUnavailable');
    return ApplicationFailure.nonRetryable(err.message, 'VendorRejected');
  }
  if (err instanceof UrlPolicyError) return ApplicationFailure.nonRetryable(err.message, 'UrlRefused');
  return err;
}

export function createIntegrationActivities(s: Services) {
  return {
    sendIntegrationNotification: (input: NotificationInput) =>
      sendNotification(s, input).catch((err: unknown) => {
        throw retryFailure(err);
      }),
  };
}

export type IntegrationActivities = ReturnType<typeof createIntegrationActivities>;
