/**
 * Webhook deliveries, each on the exact schedule of docs/reference/service-interface.md: attempt 1 at once,
 * attempt 2 thirty seconds after attempt 1 failed, attempt 3 five minutes after attempt 2
 * failed, then `failed`. The waits are durable workflow timers and each attempt is a single
 * try, recorded on the delivery.
 *
 * One workflow runs the deliveries of a batch of events the relay coalesced
 * (services/webhooks/deliver-events.ts) side by side, each on its own schedule; a manual redelivery
 * is a batch of one. In a burst a workflow start, its task and its history serve many events
 * instead of one each (bench/README.md, webhook burst).
 *
 * Attempts are local activities: the first ones run inside the workflow's first task, so a
 * batch that succeeds costs the Temporal server one workflow task and no activity task. A local
 * activity can run again when its workflow task is retried; the attempt claims its number
 * before it posts (activities/webhooks.ts), so no attempt is ever posted twice.
 */
import { ActivityFailure, condition, proxyActivities, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { deliveriesAssignedSignal, type AttemptInput, type DeliveryRef, type WebhookEventInput } from './webhook-delivery.shared';

/** Wait before attempt 2 and attempt 3, counted from the failure of the previous one. */
export const WEBHOOK_RETRY_DELAYS_MS = [30_000, 300_000] as const;

type Outcome = 'delivered' | 'failed';

const attempts = {
  startToCloseTimeout: '20 seconds', // the HTTP call itself gives up after 10 s
  retry: { maximumAttempts: 1 },
} as const;
const marking = { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 10 } } as const;
const local = proxyLocalActivities<WebhookActivities>(attempts);
const localMarking = proxyLocalActivities<WebhookActivities>(marking);

/** One delivery's schedule; `attempt` makes one try. */
async function deliver(
  ref: DeliveryRef | { deliveryId: string },
  attempt: (input: AttemptInput) => Promise<Outcome | 'retry'>,
  fail: (input: { deliveryId: string }) => Promise<void>,
): Promise<Outcome> {
  for (let n = 1; ; n++) {
    const retryInMs = WEBHOOK_RETRY_DELAYS_MS[n - 1] ?? null;
    let outcome: Outcome | 'retry';
    try {
      outcome = await attempt({ ...ref, attempt: n, retryInMs });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      outcome = retryInMs === null ? 'failed' : 'retry';
    }
    if (outcome === 'delivered') return 'delivered';
    if (outcome === 'failed' || retryInMs === null) {
      await fail({ deliveryId: ref.deliveryId });
      return 'failed';
    }
    await sleep(retryInMs);
  }
}

/**
 * The deliveries naming this workflow's id. It reads them at its start and again on every
 * `deliveriesAssigned` signal (the relay sends one with every start, so a delivery assigned
 * after the first read is read on the next). It ends when every delivery it read has ended and
 * no signal is unread: the server refuses to complete a workflow while a signal waits, so a
 * signal sent as it ends is read too.
 */
export async function webhookBatchWorkflow(): Promise<Outcome[]> {
  let unread = true;
  setHandler(deliveriesAssignedSignal, () => {
    unread = true;
  });
  const known = new Set<string>();
  const runs: Array<Promise<Outcome>> = [];
  let ended = 0;
  while (unread) {
    unread = false;
    for (const ref of await localMarking.assignedWebhookDeliveries({ workflowId: workflowInfo().workflowId })) {
      if (known.has(ref.deliveryId)) continue;
      known.add(ref.deliveryId);
      runs.push(
        deliver(ref, local.attemptWebhookDelivery, localMarking.failWebhookDelivery).finally(() => {
          ended++;
        }),
      );
    }
    await condition(() => unread || ended === runs.length);
  }
  return Promise.all(runs);
}

/** The previous release's workflow of one event, its deliveries given; kept so that its runs finish after an upgrade. */
export async function webhookEventWorkflow({ deliveries }: WebhookEventInput): Promise<Outcome[]> {
  return Promise.all(deliveries.map((ref) => deliver(ref, local.attemptWebhookDelivery, localMarking.failWebhookDelivery)));
}

const remote = proxyActivities<WebhookActivities>(attempts);
const remoteMarking = proxyActivities<WebhookActivities>(marking);

/**
 * The previous release's workflow (one delivery, attempts as activity tasks), kept so that
 * deliveries it started still finish their schedule after an upgrade; nothing starts it now.
 * Remove it one release later (its longest run is about six minutes).
 */
export async function webhookDeliveryWorkflow({ deliveryId }: { deliveryId: string }): Promise<Outcome> {
  return deliver({ deliveryId }, remote.attemptWebhookDelivery, remoteMarking.failWebhookDelivery);
}
