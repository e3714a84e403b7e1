/**
 * Delivery of one event to its subscriptions: one workflow per event (`webhook-event-<event
 * id>`) runs every subscription's delivery side by side; a manual redelivery is a workflow of
 * one. Each delivery follows the interface document's exact schedule: attempt 1 at once,
 * attempt 2 thirty seconds after attempt 1 failed, attempt 3 five minutes after attempt 2
 * failed, then `failed`. The waits are durable workflow timers and each attempt is a single
 * try, recorded on the delivery.
 *
 * Attempts are local activities: the first one runs inside the workflow's first task, so a
 * delivery that succeeds costs the Temporal server one workflow task and no activity task
 * (bench/README.md, webhook throughput). A local activity can run again when its workflow
 * task is retried; the attempt claims its number on the delivery before it posts
 * (activities/webhooks.ts), so no attempt is ever posted twice.
 */
import { ActivityFailure, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { AttemptInput, WebhookActivities } from '../activities/webhooks';
import type { DeliveryRef, WebhookEventInput } from './webhook-delivery.shared';

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
