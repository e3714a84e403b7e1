/**
 * Integration activities: delivery of one chat notification through its connector.
 * Vendor answers decide the retry: 429 waits for the vendor's Retry-After, 5xx and network
 * failures back off, other 4xx (revoked webhook, rejected payload) are not retried.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Services } from '../platform/services';
import { LIVE, connectorFor } from '../services/integrations';
import { VendorError } from '../services/integrations/connector';
import { connectorContext } from '../services/integrations/context';
import { notificationFor, wantsNotification } from '../services/integrations/notifications';
import { UrlPolicyError, connectionFailure } from '../platform/security/url-policy';
import { Event } from '../models/event';
import { Integration } from '../models/integration';
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
    async sendIntegrationNotification({ eventId, integrationId }: NotificationInput): Promise<'sent' | 'skipped'> {
      const [event, integration] = await Promise.all([Event.findById(eventId), Integration.findById(integrationId)]);
      const connector = integration && connectorFor(integration.type);
      const notification = event && notificationFor(event);
      // Disconnected or unsubscribed since the event: nothing to send.
      const wanted = notification && integration && wantsNotification(integration.config, notification.event);
      if (!event || !integration || integration.status === 'disconnected' || !connector?.notify || !notification || !wanted)
        return 'skipped';
      if (!integration.organization_id.equals(event.organization_id)) return 'skipped';

      const live = { _id: integration._id, status: LIVE };
      try {
        await connector.notify(connectorContext(s, integration, connector), notification);
      } catch (err) {
        const failure = retryFailure(err);
        const final = failure instanceof ApplicationFailure && failure.nonRetryable;
        await Integration.updateOne(live, { $set: { last_error: connectionFailure(err), ...(final ? { status: 'error' } : {}) } });
        throw failure;
      }
      await Integration.updateOne(live, { $set: { status: 'connected', last_error: null } });
      return 'sent';
    },
  };
}

export type IntegrationActivities = ReturnType<typeof createIntegrationActivities>;
