/** A failed delivery sent again as a fresh one (new id, own workflow), once. */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { isDuplicateKey } from '../../platform/mongo';
import { startWorkflowOrDiscard } from '../../platform/temporal/client';
import { WebhookDelivery } from '../../models/webhook-delivery';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { redeliveryWorkflowId, webhookBatch } from '../../workflows/webhook-delivery.shared';
import { deliveriesStart } from './deliver-events';
import { webhookErrors } from './errors';

export async function retryDelivery(s: Engines, p: Principal, id: unknown) {
  const failed = await findOwned(WebhookDelivery, p, id, 'Delivery');
  if (failed.status !== 'failed')
    throw webhookErrors.delivery_not_retryable(`Only a failed delivery can be retried; this one is ${failed.status}`);
  const previous = await WebhookDelivery.findOne({ redelivery_of: failed._id }, { _id: 1 }).lean();
  if (previous) throw webhookErrors.delivery_already_retried(`This delivery was already retried as ${previous._id.toHexString()}`);
  const sub = await WebhookSubscription.findOne({ _id: failed.subscription_id, organization_id: failed.organization_id });
  if (!sub?.active) throw webhookErrors.webhook_subscription_inactive('The subscription was removed or disabled');
  try {
    return await redeliver(s, failed);
  } catch (err) {
    // A retry made at the same moment: the fresh row is unique per failed delivery.
    if (isDuplicateKey(err)) throw webhookErrors.delivery_already_retried('This delivery was already retried');
    throw err;
  }
}

/** The fresh delivery, with the same body; not kept when its workflow cannot start (503). */
async function redeliver(s: Engines, failed: InstanceType<typeof WebhookDelivery>) {
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
  await startWorkflowOrDiscard(s, webhookBatch, deliveriesStart(fresh.workflow_id!, fresh.organization_id), {
    discard: () => WebhookDelivery.deleteOne({ _id: fresh._id }),
  });
  return fresh;
}
