/** The OpenAPI description of the webhook operations (api/routes/webhooks.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { EVENT_TYPES } from '../../models/event';
import { DELIVERY_STATUSES } from '../../models/webhook-delivery';
import { subscribeBody } from '../../services/webhooks/subscribe-webhook';
import { deliveriesQuery } from '../../services/webhooks/list-webhooks';
import { operation, pageOf, registry, timestamp } from '../http/openapi';

/** subscriptionView (models/webhook-subscription.ts): never the secret. */
const subscriptionSchema = registry.register(
  'WebhookSubscription',
  z.object({
    id: idSchema,
    url: z.url(),
    events: z.array(z.enum(EVENT_TYPES)),
    active: z.boolean(),
    disabled_reason: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
/** deliveryView (models/webhook-delivery.ts); `id` is the X-Service-Delivery / webhook-id value. */
const deliverySchema = registry.register(
  'WebhookDelivery',
  z.object({
    id: idSchema,
    event: z.enum(EVENT_TYPES),
    subscription_id: idSchema,
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    redelivery_of: idSchema.nullable(),
    workflow_id: z.string().nullable(),
    created_at: timestamp,
  }),
);

const tag = 'Webhooks';
operation({
  path: '/webhooks/subscribe',
  method: 'post',
  tag,
  body: subscribeBody,
  summary: 'Subscribe a URL to events (honours Idempotency-Key); the URL must be http(s) and resolve to a public address',
  description:
    'Deliveries are signed with the secret: `X-Service-Signature` and the Standard Webhooks headers. Payloads are described under `webhooks`. An organization holds at most `WEBHOOK_SUBSCRIPTIONS_PER_ORG` subscriptions (20 by default); remove one to add another.',
  responses: {
    201: { description: 'The subscription (never the secret)', schema: subscriptionSchema },
    409: 'The organization already has the most subscriptions allowed, or the Idempotency-Key was reused with a different body',
  },
});
operation({
  path: '/webhooks',
  method: 'get',
  tag,
  summary: 'List subscriptions',
  responses: {
    200: { description: 'Subscriptions', schema: z.object({ webhooks: z.array(subscriptionSchema), total: z.number().int() }) },
  },
});
operation({
  path: '/webhooks/deliveries',
  method: 'get',
  tag,
  summary: 'List deliveries (newest first), by status or subscription',
  query: deliveriesQuery,
  responses: { 200: { description: 'A page of deliveries', schema: pageOf('deliveries', deliverySchema) } },
});
operation({
  path: '/webhooks/deliveries/{id}/retry',
  method: 'post',
  tag,
  summary: 'Retry a failed delivery as a fresh one (once)',
  responses: {
    201: { description: 'The new delivery', schema: deliverySchema },
    409: 'Not failed, already retried, or the subscription is gone',
    503: 'The workflow engine is unavailable',
  },
});
operation({ path: '/webhooks/{id}', method: 'delete', tag, summary: 'Remove a subscription', responses: { 204: 'Removed' } });
