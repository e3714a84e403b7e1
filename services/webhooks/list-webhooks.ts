/** What an organization's webhook managers see: its subscriptions, and a page of deliveries. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { listPage } from '../../platform/lists/list-index';
import { inOrg, orgFilter } from '../../models/base';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { DELIVERY_STATUSES, deliveryList } from '../../models/webhook-delivery';
import { objectId } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import { z } from 'zod';

export const listWebhooks = (p: Principal) => WebhookSubscription.find(orgFilter(p.organizationId)).sort({ created_at: -1 });

export const deliveriesQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  subscription_id: objectId('not a webhook id').optional(),
});
export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;

export async function listDeliveries(s: Engines, p: Principal, q: DeliveriesQuery) {
  const equal: Record<string, unknown> = {};
  if (q.status) equal.status = q.status;
  if (q.subscription_id !== undefined) {
    const sub = inOrg(p.organizationId, q.subscription_id);
    if (!sub) throw badRequest('subscription_id: not a webhook id');
    equal.subscription_id = sub._id;
  }
  return listPage(s, deliveryList, p.organizationId, { equal }, q);
}
