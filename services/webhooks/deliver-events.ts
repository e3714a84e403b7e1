/**
 * Webhooks as a consumer of the event relay: one delivery row per event and matching
 * subscription (unique, so a replayed relay finds the same row and id), each naming the
 * workflow that delivers it. The events a process relays close together, per organization,
 * share one `webhook-batch-<first event id>` workflow (workflows/webhook-delivery.ts), which
 * reads the deliveries naming it.
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
import type { Services } from '../../platform/engines';
import type { EventConsumer, EventRecord } from '../../platform/outbox/relay';
import { startWorkflow } from '../../platform/temporal/client';
import { WebhookDelivery } from '../../models/webhook-delivery';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { batchWorkflowId, deliveriesAssignedSignal, webhookBatch } from '../../workflows/webhook-delivery.shared';
import { isDuplicateKey } from '../../platform/mongo';
import { groupCommit } from '../../platform/group-commit';

/** The delivered body: the interface document's payload, serialized once and signed as is. */
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

async function startDeliveries(s: Services, workflowId: string, organizationId: Types.ObjectId): Promise<void> {
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

/** A batch closes once this many events joined it, even while an earlier start is under way... */
const BATCH_MAX_EVENTS = 50;
/** ... or once it is this old. */
const BATCH_MAX_WAIT_MS = 500;

/**
 * Events of one organization whose new deliveries one workflow takes. A batch takes events
 * while open; it closes when no start of its organization is under way (so a lone event waits
 * for nothing, and in a burst the events that come during one start share the next), when
 * full, or when old. It is started once the events that joined it have written their rows, so
 * the start comes after every row naming it.
 */
interface Batch {
  s: Services;
  organizationId: Types.ObjectId;
  workflowId: string;
  events: number;
  /** Events that joined and are still writing their rows. */
  writing: number;
  /** Rows naming the batch's workflow (none when only replays, which find their rows under their first workflow, joined). */
  rows: number;
  open: boolean;
  timer?: NodeJS.Timeout;
  started: Promise<void>;
  settle: { resolve: () => void; reject: (err: unknown) => void };
}

interface OrganizationBatches {
  key: string;
  open?: Batch;
  /** Starts under way. */
  starting: number;
}

/** This process's batches, per organization. */
const batching = new Map<string, OrganizationBatches>();

function join(s: Services, event: EventRecord): { org: OrganizationBatches; batch: Batch } {
  const key = event.organization_id.toHexString();
  let org = batching.get(key);
  if (!org) batching.set(key, (org = { key, starting: 0 }));
  if (!org.open) {
    let settle!: Batch['settle'];
    const started = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    started.catch(() => undefined); // its events await it; this only keeps a batch no event awaits from an unhandled rejection
    const batch: Batch = {
      s,
      organizationId: event.organization_id,
      workflowId: batchWorkflowId(event.id),
      events: 0,
      writing: 0,
      rows: 0,
      open: true,
      started,
      settle,
    };
    const opened = org;
    batch.timer = setTimeout(() => close(opened, batch), BATCH_MAX_WAIT_MS);
    org.open = batch;
  }
  const batch = org.open;
  batch.events++;
  batch.writing++;
  if (batch.events >= BATCH_MAX_EVENTS) close(org, batch);
  return { org, batch };
}

/** An event that joined `batch` has written its rows (`rows` of them name the batch). */
function written(org: OrganizationBatches, batch: Batch, rows: number): void {
  batch.writing--;
  batch.rows += rows;
  if (batch.open && batch.writing === 0 && org.starting === 0) close(org, batch);
  else startWhenWritten(org, batch);
}

/** The batch takes no more events. */
function close(org: OrganizationBatches, batch: Batch): void {
  if (!batch.open) return;
  batch.open = false;
  clearTimeout(batch.timer);
  if (org.open === batch) org.open = undefined;
  startWhenWritten(org, batch);
}

function startWhenWritten(org: OrganizationBatches, batch: Batch): void {
  if (batch.open || batch.writing > 0) return;
  if (!batch.rows) {
    batch.settle.resolve();
    return forget(org);
  }
  org.starting++;
  startDeliveries(batch.s, batch.workflowId, batch.organizationId)
    .then(batch.settle.resolve, batch.settle.reject)
    .finally(() => {
      org.starting--;
      // The open batch may have waited only for this start.
      if (org.open && org.open.writing === 0) close(org, org.open);
      forget(org);
    });
}

function forget(org: OrganizationBatches): void {
  if (!org.open && !org.starting) batching.delete(org.key);
}

/**
 * An organization's active subscriptions: the events relayed while a read of their
 * organization is under way share the next read (made after they were recorded, so a
 * subscription made before an event is always seen by it).
 */
const activeSubscriptions = groupCommit((organizationId: string) =>
  WebhookSubscription.find({ organization_id: organizationId, active: true }, { _id: 1, events: 1 }).lean().exec(),
);

export const webhookConsumer: EventConsumer = {
  name: 'webhooks',
  async consume(s, event) {
    const subscriptions = (await activeSubscriptions(event.organization_id.toHexString())).filter((sub) => sub.events.includes(event.type));
    if (!subscriptions.length) return;
    const { org, batch } = join(s, event);
    let deliveries: Array<InstanceType<typeof WebhookDelivery>> = [];
    try {
      deliveries = await Promise.all(subscriptions.map((sub) => deliveryFor(event, sub._id, batch.workflowId)));
    } finally {
      written(org, batch, deliveries.filter((d) => d.workflow_id === batch.workflowId).length);
    }
    // A replay finds its pending rows under the workflow they named first: start or signal that one.
    const pending = new Set(deliveries.filter((d) => d.status === 'pending' && d.workflow_id).map((d) => d.workflow_id!));
    await Promise.all(
      [...pending].map((workflowId) =>
        workflowId === batch.workflowId ? batch.started : startDeliveries(s, workflowId, event.organization_id),
      ),
    );
  },
};
