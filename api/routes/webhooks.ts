/**
 * Webhook subscriptions and their deliveries. Secrets are stored sealed and never
 * returned; URLs follow platform/security/url-policy.ts here and again at every delivery.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { subscribeBody, subscribeWebhook } from '../../services/webhooks/subscribe-webhook';
import { deliveriesQuery, listDeliveries, listWebhooks } from '../../services/webhooks/list-webhooks';
import { retryDelivery } from '../../services/webhooks/retry-delivery';
import { removeWebhook } from '../../services/webhooks/remove-webhook';
import { subscriptionView } from '../../models/webhook-subscription';
import { deliveryView } from '../../models/webhook-delivery';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { sendPage } from '../http/pages';
import '../operations/webhooks';

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
    sendPage(res, 'deliveries', q, await listDeliveries(s, principalOf(req), q));
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
