/**
 * Delivery of one event to one subscription on the interface document's exact schedule:
 * attempt 1 at once, attempt 2 thirty seconds after attempt 1 failed, attempt 3 five
 * minutes after attempt 2 failed, then `failed`. The waits are durable workflow timers
 * and each attempt is a single activity try, so the schedule survives worker restarts
 * and every attempt is recorded on the delivery.
 */
import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';

/** Wait before attempt 2 and attempt 3, counted from the failure of the previous one. */
export const WEBHOOK_RETRY_DELAYS_MS = [30_000, 300_000] as const;

const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '20 seconds', // the HTTP call itself gives up after 10 s
  retry: { maximumAttempts: 1 },
});
const { failWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 10 },
});

export interface WebhookDeliveryInput {
  deliveryId: string;
}

export async function webhookDeliveryWorkflow({ deliveryId }: WebhookDeliveryInput): Promise<'delivered' | 'failed'> {
  for (let attempt = 1; ; attempt++) {
    const retryInMs = WEBHOOK_RETRY_DELAYS_MS[attempt - 1] ?? null;
    let outcome: 'delivered' | 'failed' | 'retry';
    try {
      outcome = await attemptWebhookDelivery({ deliveryId, attempt, retryInMs });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      outcome = retryInMs === null ? 'failed' : 'retry';
    }
    if (outcome === 'delivered') return 'delivered';
    if (outcome === 'failed' || retryInMs === null) {
      await failWebhookDelivery({ deliveryId });
      return 'failed';
    }
    await sleep(retryInMs);
  }
}
