/** What starters of the webhook delivery workflows share with them. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface DeliveryRef {
  deliveryId: string;
  subscriptionId: string;
}

export interface WebhookEventInput {
  deliveries: DeliveryRef[];
}

/** The deliveries of one event (or one redelivery). */
export const webhookEvent = workflowRef<[WebhookEventInput]>('webhookEventWorkflow', 'webhook-delivery');
