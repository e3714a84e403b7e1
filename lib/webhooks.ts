/**
 * Webhooks as a consumer of the event relay: one delivery row per event and matching
 * subscription (unique, so a replayed relay finds the same row and id), and one
 * `webhook-delivery-<deliveryId>` workflow per delivery.
 */
import type { Types } from 'mongoose';
import type { Services } from './services';
import type { EventConsumer, EventRecord } from './relay';
import { startOnce } from './temporal';
import { WebhookDelivery } from '../models/webhook-delivery';
import { WebhookSubscription } from '../models/webhook-subscription';
import type { webhookDeliveryWorkflow } from '../workflows/webhook-delivery';

export const WEBHOOK_DELIVERY_KIND = 'webhook-delivery';
const WORKFLOW_TYPE: (typeof webhookDeliveryWorkflow)['name'] = 'webhookDeliveryWorkflow';

/** The delivered body: the interface document's payload, serialized once and signed as is. */
export function webhookBody(event: Pick<EventRecord, 'type' | 'occurred_at' | 'data' | 'organization_id'>): string {
  return JSON.stringify({
    event: event.type,
    timestamp: event.occurred_at.toISOString(),
    data: event.data as unknown,
    organization_id: event.organization_id.toHexString(),
  });
}

export const deliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/** Starts the delivery's workflow unless it already exists. */
export async function startWebhookDelivery(s: Services, delivery: { _id: Types.ObjectId; organization_id: Types.ObjectId }): Promise<void> {
  const deliveryId = delivery._id.toHexString();
  const workflowId = deliveryWorkflowId(deliveryId);
  await startOnce(s, {
    workflowType: WORKFLOW_TYPE,
    workflowId,
    args: [{ deliveryId }],
    kind: WEBHOOK_DELIVERY_KIND,
    organizationId: delivery.organization_id.toHexString(),
    recordId: deliveryId,
  });
  await WebhookDelivery.updateOne({ _id: delivery._id, workflow_id: null }, { $set: { workflow_id: workflowId } });
}

const isDuplicateKey = (err: unknown) => (err as { code?: number } | null)?.code === 11000;

/** The delivery of `event` to `subscriptionId`: created once, found again on every replay. */
async function deliveryFor(event: EventRecord, subscriptionId: Types.ObjectId) {
  const key = { event_id: event._id, subscription_id: subscriptionId, redelivery_of: null };
  const found = await WebhookDelivery.findOne(key);
  if (found) return found;
  try {
    return await WebhookDelivery.create({
      ...key,
      organization_id: event.organization_id,
      event: event.type,
      body: webhookBody(event),
      next_attempt_at: new Date(),
    });
  } catch (err) {
    // A concurrent relay of the same event created it first.
    if (isDuplicateKey(err)) return WebhookDelivery.findOne(key).orFail();
    throw err;
  }
}

export const webhookConsumer: EventConsumer = {
  name: 'webhooks',
  async consume(s, event) {
    const subscriptions = await WebhookSubscription.find({ organization_id: event.organization_id, active: true, events: event.type }, { _id: 1 }).lean();
    for (const sub of subscriptions) {
      const delivery = await deliveryFor(event, sub._id);
      if (delivery.status === 'pending') await startWebhookDelivery(s, delivery);
    }
  },
};

/** A fresh delivery (new id, new workflow) of a failed one, with the same body. */
export async function redeliver(s: Services, failed: InstanceType<typeof WebhookDelivery>) {
  const fresh = await WebhookDelivery.create({
    organization_id: failed.organization_id,
    subscription_id: failed.subscription_id,
    event_id: failed.event_id,
    event: failed.event,
    body: failed.body,
    redelivery_of: failed._id,
    next_attempt_at: new Date(),
  });
  try {
    await startWebhookDelivery(s, fresh);
  } catch (err) {
    // Without its workflow the row would stay pending forever; the caller may try again.
    await WebhookDelivery.deleteOne({ _id: fresh._id });
    throw err;
  }
  return fresh;
}
