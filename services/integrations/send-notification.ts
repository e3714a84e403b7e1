/**
 * Delivery of one chat notification through its integration's connector, and the
 * integration's state after it: connected again on success, its last error on failure
 * (in error for good when no retry mends the refusal).
 */
import type { Engines } from '../../platform/engines';
import { LIVE, connectorFor } from '.';
import { VendorError } from './connector';
import { connectorContext } from './context';
import { notificationFor, wantsNotification } from './notifications';
import { UrlPolicyError, connectionFailure } from '../../platform/security/url-policy';
import { Event } from '../../models/event';
import { Integration } from '../../models/integration';
import type { NotificationInput } from '../../workflows/integration-notification.shared';

export async function sendNotification(s: Engines, { eventId, integrationId }: NotificationInput): Promise<'sent' | 'skipped'> {
  const [event, integration] = await Promise.all([Event.findById(eventId), Integration.findById(integrationId)]);
  const connector = integration && connectorFor(integration.type);
  const notification = event && notificationFor(event);
  // Disconnected or unsubscribed since the event: nothing to send.
  const wanted = notification && integration && wantsNotification(integration.config, notification.event);
  if (!event || !integration || integration.status === 'disconnected' || !connector?.notify || !notification || !wanted) return 'skipped';
  if (!integration.organization_id.equals(event.organization_id)) return 'skipped';

  const live = { _id: integration._id, status: LIVE };
  try {
    await connector.notify(connectorContext(s, integration, connector), notification);
  } catch (err) {
    // A refusal that no retry mends leaves the integration in error.
    const final = (err instanceof VendorError && !err.retryable) || err instanceof UrlPolicyError;
    await Integration.updateOne(live, { $set: { last_error: connectionFailure(err), ...(final ? { status: 'error' } : {}) } });
    throw err;
  }
  await Integration.updateOne(live, { $set: { status: 'connected', last_error: null } });
  return 'sent';
}
