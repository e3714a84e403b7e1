/**
 * Webhook subscriptions and their deliveries. Secrets are stored sealed and never
 * returned; URLs follow platform/security/url-policy.ts here and again at every delivery.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { subscribeBody, subscribeWebhook } from '../../services/webhooks/subscribe-webhook';
import { deliveriesQuery, listDeliveries, listWebhooks } from '../../services/webhooks/list-webhooks';
import { retryDelivery } from '../../services/webhooks/retry-delivery';
import { removeWebhook } from '../../services/webhooks/remove-webhook';
import { EVENT_TYPES } from '../../models/event';
import { subscriptionView } from '../../models/webhook-subscription';
import { DELIVERY_STATUSES, deliveryView } from '../../models/webhook-delivery';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';

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

export function webhooksRouter(s: Engines): Router {
  const router = Router();
  const manage = authorize('webhooks:manage');
  const once = idempotent(s.logger);

  router.post('/subscribe', manage, once, async (req, res) => {
    const sub = await subscribeWebhook(s, principalOf(req), subscribeBody.parse(req.body));
    res.status(201).json(subscriptionView(sub));
  });

  router.get('/', manage, async (req, res) => {
    const subs = await listWebhooks(principalOf(req));
    res.json({ webhooks: subs.map(subscriptionView), total: subs.length });
  });

  router.get('/deliveries', manage, async (req, res) => {
    const q = deliveriesQuery.parse(req.query);
    const { items, total } = await listDeliveries(s, principalOf(req), q);
    res.json({ deliveries: items, total, page: q.page, page_size: q.page_size });
  });

  router.post('/deliveries/:id/retry', manage, async (req, res) => {
    res.status(201).json(deliveryView(await retryDelivery(s, principalOf(req), req.params.id)));
  });

  router.delete('/:id', manage, async (req, res) => {
    await removeWebhook(principalOf(req), req.params.id);
    res.status(204).end();
  });

  return router;
}
