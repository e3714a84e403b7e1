/** Webhook delivery attempts, adapted to Temporal (services/webhooks/attempt-delivery.ts). */
import type { Engines } from '../platform/engines';
import { webhookAttempts } from '../services/webhooks/attempt-delivery';
import type { AttemptInput } from '../workflows/webhook-delivery.shared';

export function createWebhookActivities(s: Engines) {
  const attempts = webhookAttempts(s);
  return {
    attemptWebhookDelivery: (input: AttemptInput) => attempts.attempt(input),
    /** The pending deliveries naming the workflow `workflowId`, for webhookBatchWorkflow. */
    assignedWebhookDeliveries: (input: { workflowId: string }) => attempts.assigned(input),
    failWebhookDelivery: (input: { deliveryId: string }) => attempts.fail(input),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
