/** What starters of the webhook delivery workflows share with them. */
import { defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface DeliveryRef {
  deliveryId: string;
  subscriptionId: string;
}

/** One attempt of one delivery (the workflow's activity input). */
export interface AttemptInput {
  deliveryId: string;
  /** Absent in runs of the previous release's workflow: then read from the delivery. */
  subscriptionId?: string;
  attempt: number;
  /** Delay before the next attempt if this one fails; null on the last attempt. */
  retryInMs: number | null;
}

/** The previous release's `webhookEventWorkflow`: one event's deliveries as arguments. */
export interface WebhookEventInput {
  deliveries: DeliveryRef[];
}

/**
 * The deliveries naming this workflow's id (`workflow_id` on the delivery): a batch of events
 * the relay coalesced, or one redelivery. It reads them itself, so any start of the id covers
 * every delivery assigned to it before that start.
 */
export const webhookBatch = workflowRef<[]>('webhookBatchWorkflow', 'webhook-delivery');

/** A batch's workflow is named after its first event; a manual redelivery has one of its own. */
export const batchWorkflowId = (eventId: string) => `webhook-batch-${eventId}`;
export const redeliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/** Deliveries were assigned to the workflow after it started: it reads them again. */
export const deliveriesAssignedSignal = defineSignal('deliveriesAssigned');
