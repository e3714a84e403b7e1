import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { defineList } from '../platform/lists/lists';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const attemptSchema = new Schema(
  {
    attempt: { type: Number, required: true },
    at: { type: Date, required: true },
    status_code: { type: Number, default: null },
    error: { type: String, default: null },
    duration_ms: { type: Number, required: true },
  },
  { _id: false },
);

/**
 * One event for one subscription. Its id is the `X-Service-Delivery` / `webhook-id` value,
 * the same on every attempt; (event_id, subscription_id, redelivery_of) is unique so a
 * replayed relay never creates a second delivery of one event.
 */
const schema = new Schema({
  ...tenantFields,
  subscription_id: { type: Schema.Types.ObjectId, required: true },
  event_id: { type: Schema.Types.ObjectId, required: true },
  event: { type: String, required: true },
  /** The exact bytes sent on every attempt (signed as they are). */
  body: { type: String, required: true },
  status: { type: String, enum: DELIVERY_STATUSES, default: 'pending' },
  attempts: { type: Number, default: 0 },
  attempt_log: { type: [attemptSchema], default: [] },
  last_status_code: { type: Number, default: null },
  last_error: { type: String, default: null },
  next_attempt_at: { type: Date, default: null },
  delivered_at: { type: Date, default: null },
  /** Set on a manual redelivery: the failed delivery it repeats. */
  redelivery_of: { type: Schema.Types.ObjectId, default: null },
  workflow_id: { type: String, default: null },
});
schema.plugin(basePlugin, { hidden: ['body', 'attempt_log'] });
// The list index (platform/lists/list-index.ts) follows every write.
announceWrites(schema);
schema.index({ event_id: 1, subscription_id: 1, redelivery_of: 1 }, { unique: true });
// A batch's workflow reads the deliveries assigned to it (workflows/webhook-delivery.ts).
schema.index({ workflow_id: 1 });
// The list (deliveryList): newest first, optionally by status or subscription.
schema.index({ organization_id: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, status: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, subscription_id: 1, created_at: -1, _id: -1 });

export type WebhookDeliveryDoc = InferSchemaType<typeof schema>;
export const WebhookDelivery = model('WebhookDelivery', schema, 'webhook_deliveries');

export const deliveryList = defineList({
  name: 'webhook-deliveries',
  model: WebhookDelivery,
  filters: ['status', 'subscription_id'],
  sort: { field: 'created_at', order: -1 },
  row: deliveryView,
});

/** The deliveries view; `id` is the `X-Service-Delivery` value. */
export function deliveryView(d: InstanceType<typeof WebhookDelivery>) {
  return {
    id: d.id,
    event: d.event,
    subscription_id: d.subscription_id.toHexString(),
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code ?? null,
    last_error: d.last_error ?? null,
    next_attempt_at: d.next_attempt_at ?? null,
    redelivery_of: d.redelivery_of?.toHexString() ?? null,
    workflow_id: d.workflow_id ?? null,
    created_at: d.get('created_at') as Date,
  };
}
