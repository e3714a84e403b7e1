/**
 * Webhook subscriptions and their deliveries. Secrets are stored sealed and never
 * returned; URLs follow platform/security/url-policy.ts here and again at every delivery.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { encryptSecret } from '../../platform/security/crypto';
import { resolvedUrlRefusal } from '../../platform/security/url-policy';
import { pageQuery } from '../../platform/lists/pagination';
import { listPage } from '../../platform/lists/list-index';
import { redeliver } from '../../services/webhooks/webhooks';
import { inOrg, orgFilter } from '../../models/base';
import { EVENT_TYPES } from '../../models/event';
import { WebhookSubscription, subscriptionView } from '../../models/webhook-subscription';
import { DELIVERY_STATUSES, WebhookDelivery, deliveryList, deliveryView } from '../../models/webhook-delivery';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { badRequest, conflict, notFound } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { idSchema, objectId } from '../../platform/input';
import { isDuplicateKey } from '../../platform/mongo';

/** Standard Webhooks asks for at least 24 random bytes; 16 characters is the floor we enforce. */
const SECRET_MIN = 16;

const subscribeBody = z.object({
  url: z.string().max(2048).meta({ format: 'uri', description: 'An http or https URL that resolves to a public address' }),
  events: z
    .array(z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(', ')}` }))
    .min(1)
    .transform((events) => [...new Set(events)]),
  secret: z.string().min(SECRET_MIN).max(256),
});

const deliveriesQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  subscription_id: objectId('not a webhook id').optional(),
});

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

export function webhooksRouter(s: Services): Router {
  const router = Router();
  const policy = { allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS };
  const manage = authorize('webhooks:manage');
  const once = idempotent(s.logger);

  router.post('/subscribe', manage, once, async (req, res) => {
    const p = principalOf(req);
    const body = subscribeBody.parse(req.body);
    const refused = await resolvedUrlRefusal(body.url, policy);
    if (refused) throw badRequest(`url: ${refused}`);
    const limit = s.config.WEBHOOK_SUBSCRIPTIONS_PER_ORG;
    const full = () => conflict(`This organization already has ${limit} webhook subscriptions, the most allowed; remove one first`);
    if ((await WebhookSubscription.countDocuments(orgFilter(p.organizationId))) >= limit) throw full();
    const sub = await WebhookSubscription.create({
      organization_id: p.organizationId,
      url: body.url,
      events: body.events,
      secret_encrypted: encryptSecret(s.config, body.secret),
      created_by: p.userId,
    });
    // Counted again after the insert: of concurrent subscribes at the limit, those that see
    // too many take theirs back, so the organization never keeps more than the limit.
    if ((await WebhookSubscription.countDocuments(orgFilter(p.organizationId))) > limit) {
      await WebhookSubscription.deleteOne({ _id: sub._id });
      throw full();
    }
    res.status(201).json(subscriptionView(sub));
  });

  router.get('/', manage, async (req, res) => {
    const subs = await WebhookSubscription.find(orgFilter(principalOf(req).organizationId)).sort({ created_at: -1 });
    res.json({ webhooks: subs.map(subscriptionView), total: subs.length });
  });

  router.get('/deliveries', manage, async (req, res) => {
    const q = deliveriesQuery.parse(req.query);
    const equal: Record<string, unknown> = {};
    if (q.status) equal.status = q.status;
    if (q.subscription_id !== undefined) {
      const sub = inOrg(principalOf(req).organizationId, q.subscription_id);
      if (!sub) throw badRequest('subscription_id: not a webhook id');
      equal.subscription_id = sub._id;
    }
    const { items, total } = await listPage(s, deliveryList, principalOf(req).organizationId, { equal }, q);
    res.json({ deliveries: items, total, page: q.page, page_size: q.page_size });
  });

  router.post('/deliveries/:id/retry', manage, async (req, res) => {
    const failed = await findOwned(WebhookDelivery, principalOf(req), req.params.id, 'Delivery');
    if (failed.status !== 'failed') throw conflict(`Only a failed delivery can be retried; this one is ${failed.status}`);
    const previous = await WebhookDelivery.findOne({ redelivery_of: failed._id }, { _id: 1 }).lean();
    if (previous) throw conflict(`This delivery was already retried as ${previous._id.toHexString()}`);
    const sub = await WebhookSubscription.findOne({ _id: failed.subscription_id, organization_id: failed.organization_id });
    if (!sub?.active) throw conflict('The subscription was removed or disabled');
    let fresh;
    try {
      fresh = await redeliver(s, failed);
    } catch (err) {
      // A retry made at the same moment: the fresh row is unique per failed delivery.
      if (isDuplicateKey(err)) throw conflict('This delivery was already retried');
      throw err;
    }
    res.status(201).json(deliveryView(fresh));
  });

  router.delete('/:id', manage, async (req, res) => {
    const filter = inOrg(principalOf(req).organizationId, req.params.id);
    const removed = filter && (await WebhookSubscription.findOneAndDelete(filter));
    if (!removed) throw notFound('Webhook');
    res.status(204).end();
  });

  return router;
}
