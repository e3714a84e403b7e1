/**
 * Webhooks as a consumer of the event relay: one delivery row per event and matching
 * subscription (unique, so a replayed relay finds the same row and id), and one
 * `webhook-event-<eventId>` workflow per event that delivers to all of them.
 */
import { Types } from 'mongoose';
import type { Services } from '../../platform/services';
import type { EventConsumer, EventRecord } from '../../platform/outbox/relay';
import { startWorkflow } from '../../platform/temporal/client';
import { WebhookDelivery } from '../../models/webhook-delivery';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { webhookEvent, type DeliveryRef } from '../../workflows/webhook-delivery.shared';
import { isDuplicateKey } from '../../platform/mongo';

/** The delivered body: the interface document's payload, serialized once and signed as is. */
export function webhookBody(event: Pick<EventRecord, 'type' | 'occurred_at' | 'data' | 'organization_id'>): string {
  return JSON.stringify({
    event: event.type,
    timestamp: event.occurred_at.toISOString(),
    data: event.data as unknown,
    organization_id: event.organization_id.toHexString(),
  });
}

/** The workflow of an event's deliveries; a manual redelivery has one of its own. */
export const eventDeliveryWorkflowId = (eventId: string) => `webhook-event-${eventId}`;
export const redeliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/** Starts the workflow of `deliveries` unless it already exists; `recordId` names the event or the redelivery. */
async function startDeliveries(
  s: Services,
  workflowId: string,
  organizationId: Types.ObjectId,
  recordId: string,
  deliveries: DeliveryRef[],
): Promise<void> {
  await startWorkflow(s, webhookEvent, {
    workflowId,
    args: [{ deliveries }],
    organizationId: organizationId.toHexString(),
    recordId,
  });
}

/**
 * The delivery of `event` to `subscriptionId`: created once (one write), found again on a
 * replay. It names its workflow from the start, so nothing is written after the start.
 */
async function deliveryFor(event: EventRecord, subscriptionId: Types.ObjectId) {
  const key = { event_id: event._id, subscription_id: subscriptionId, redelivery_of: null };
  try {
    return await WebhookDelivery.create({
      ...key,
      organization_id: event.organization_id,
      event: event.type,
      body: webhookBody(event),
      next_attempt_at: new Date(),
      workflow_id: eventDeliveryWorkflowId(event.id),
    });
  } catch (err) {
    // Made by an earlier relay of the same event (a replay, or the catch-up loop beside the immediate relay).
    if (isDuplicateKey(err)) return WebhookDelivery.findOne(key).orFail();
    throw err;
  }
}

export const webhookConsumer: EventConsumer = {
  name: 'webhooks',
  async consume(s, event) {
    const subscriptions = await WebhookSubscription.find(
      { organization_id: event.organization_id, active: true, events: event.type },
      { _id: 1 },
    ).lean();
    if (!subscriptions.length) return;
    const deliveries = await Promise.all(subscriptions.map((sub) => deliveryFor(event, sub._id)));
    const pending = deliveries
      .filter((d) => d.status === 'pending')
      .map((d) => ({ deliveryId: d.id, subscriptionId: d.subscription_id.toHexString() }));
    if (pending.length) await startDeliveries(s, eventDeliveryWorkflowId(event.id), event.organization_id, event.id, pending);
  },
};

/** A fresh delivery (new id, new workflow) of a failed one, with the same body. */
export async function redeliver(s: Services, failed: InstanceType<typeof WebhookDelivery>) {
  const _id = new Types.ObjectId();
  const fresh = await WebhookDelivery.create({
    _id,
    workflow_id: redeliveryWorkflowId(_id.toHexString()),
    organization_id: failed.organization_id,
    subscription_id: failed.subscription_id,
    event_id: failed.event_id,
    event: failed.event,
    body: failed.body,
    redelivery_of: failed._id,
    next_attempt_at: new Date(),
  });
  try {
    await startDeliveries(s, fresh.workflow_id!, fresh.organization_id, fresh.id, [
      { deliveryId: fresh.id, subscriptionId: fresh.subscription_id.toHexString() },
    ]);
  } catch (err) {
    // Without its workflow the row would stay pending forever; the caller may try again.
    await WebhookDelivery.deleteOne({ _id: fresh._id });
    throw err;
  }
  return fresh;
}
