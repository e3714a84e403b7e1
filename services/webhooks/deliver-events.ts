/**
 * Webhooks as a consumer of the event relay: one delivery row per event and matching
 * subscription (unique, so a replayed relay finds the same row and id), each naming the
 * workflow that delivers it. The events a process relays while their organization's previous
 * batch is written and started (up to 50) share one `webhook-batch-<first event id>` workflow
 * (workflows/webhook-delivery.ts), which reads the deliveries naming it.
 *
 * Why nothing is lost or sent twice:
 * - an event is marked relayed only after a start (signal-with-start) of its deliveries'
 *   workflow that came after their rows were written; the workflow reads its deliveries at its
 *   start and on every such signal, so that start covers them;
 * - when the start fails, or the process dies between the rows and the start, the event stays
 *   unrelayed and the relay loop replays it: the replay finds the rows (unique), names the
 *   same workflow and starts or signals it again;
 * - a replay never makes a second row, and a second start of a running id is a signal; an
 *   attempt claims its number before it posts (attempt-delivery.ts).
 */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { EventConsumer, EventRecord } from '../../platform/outbox/relay';
import { startWorkflow } from '../../platform/temporal/client';
import { WebhookDelivery } from '../../models/webhook-delivery';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { batchWorkflowId, deliveriesAssignedSignal, webhookBatch } from '../../workflows/webhook-delivery.shared';
import { isDuplicateKey } from '../../platform/mongo';
import { sharedFlush } from '../../platform/shared-flush';

/** The delivered body: the payload of docs/reference/service-interface.md, serialized once and signed as is. */
export function webhookBody(event: Pick<EventRecord, 'type' | 'occurred_at' | 'data' | 'organization_id'>): string {
  return JSON.stringify({
    event: event.type,
    timestamp: event.occurred_at.toISOString(),
    data: event.data as unknown,
    organization_id: event.organization_id.toHexString(),
  });
}

/**
 * Starts the workflow `workflowId`, or tells the running one to read its deliveries again. Its
 * record (search attribute) is the id it is named after: the first event, or the redelivery.
 */
export const deliveriesStart = (workflowId: string, organizationId: Types.ObjectId) => ({
  workflowId,
  args: [] as [],
  signal: { signal: deliveriesAssignedSignal, args: [] },
  organizationId: organizationId.toHexString(),
  recordId: workflowId.slice(workflowId.lastIndexOf('-') + 1),
});

async function startDeliveries(s: Engines, workflowId: string, organizationId: Types.ObjectId): Promise<void> {
  await startWorkflow(s, webhookBatch, deliveriesStart(workflowId, organizationId));
}

/**
 * The delivery of `event` to `subscriptionId`: created once (one write) naming `workflowId`,
 * found again, with the workflow it named, on a replay.
 */
async function deliveryFor(event: EventRecord, subscriptionId: Types.ObjectId, workflowId: string) {
  const key = { event_id: event._id, subscription_id: subscriptionId, redelivery_of: null };
  try {
    return await WebhookDelivery.create({
      ...key,
      organization_id: event.organization_id,
      event: event.type,
      body: webhookBody(event),
      next_attempt_at: new Date(),
      workflow_id: workflowId,
    });
  } catch (err) {
    // Made by an earlier relay of the same event (a replay, or the catch-up loop beside the immediate relay).
    if (isDuplicateKey(err)) return WebhookDelivery.findOne(key).orFail();
    throw err;
  }
}

/** A batch's workflow takes at most this many events; a full batch goes without waiting... */
const BATCH_MAX_EVENTS = 50;
/** ... as does one that waited this long for its organization's previous batch. */
const BATCH_MAX_WAIT_MS = 500;

/** An event on its way to its organization's batch, with the subscriptions it matches. */
interface Relayed {
  s: Engines;
  event: EventRecord;
  subscriptionIds: Types.ObjectId[];
}

/**
 * Per organization, the events relayed while its previous batch is written and started make
 * the next batch: a lone event waits for nothing. The batch's workflow is named after its
 * first event; all its rows are written naming it, then it is started once, so the start comes
 * after every row naming it. A replay's rows keep the workflow they named first, which is
 * started (or signalled) again. Each event's relay settles with its batch.
 */
const deliverBatch = sharedFlush(
  async (_organizationId: string, batch: Relayed[]) => {
    const { s, event: first } = batch[0]!;
    const workflowId = batchWorkflowId(first.id);
    const writes = batch.flatMap(({ event, subscriptionIds }) => subscriptionIds.map((id) => deliveryFor(event, id, workflowId)));
    const written = await Promise.allSettled(writes);
    const pending = new Set(
      written.flatMap((r) =>
        r.status === 'fulfilled' && r.value.status === 'pending' && r.value.workflow_id ? [r.value.workflow_id] : [],
      ),
    );
    // Rows written before another failed are still started; the batch's events are relayed again.
    const started = await Promise.allSettled([...pending].map((id) => startDeliveries(s, id, first.organization_id)));
    const failed = [...written, ...started].find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  },
  { maxItems: BATCH_MAX_EVENTS, maxWaitMs: BATCH_MAX_WAIT_MS },
);

/**
 * An organization's active subscriptions: the events relayed while a read of their
 * organization is under way share the next read (made after they were recorded, so a
 * subscription made before an event is always seen by it).
 */
const activeSubscriptions = sharedFlush((organizationId: string) =>
  WebhookSubscription.find({ organization_id: organizationId, active: true }, { _id: 1, events: 1 }).lean().exec(),
);

export const webhookConsumer: EventConsumer = {
  name: 'webhooks',
  async consume(s, event) {
    const subscriptions = (await activeSubscriptions(event.organization_id.toHexString())).filter((sub) => sub.events.includes(event.type));
    if (!subscriptions.length) return;
    await deliverBatch(event.organization_id.toHexString(), { s, event, subscriptionIds: subscriptions.map((sub) => sub._id) });
  },
};
