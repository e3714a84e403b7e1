import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { inOrg } from '../../models/base';
import { WebhookSubscription } from '../../models/webhook-subscription';

/** Removes a subscription of the caller's organization; its pending deliveries fail at their next attempt. */
export async function removeWebhook(p: Principal, id: unknown): Promise<void> {
  const filter = inOrg(p.organizationId, id);
  const removed = filter && (await WebhookSubscription.findOneAndDelete(filter));
  if (!removed) throw notFound('Webhook');
}
