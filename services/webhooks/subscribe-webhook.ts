/** Subscribe a URL to events: the URL policy, and at most the organization's limit of subscriptions. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { encryptSecret } from '../../platform/security/crypto';
import { resolvedUrlRefusal } from '../../platform/security/url-policy';
import { orgFilter } from '../../models/base';
import { EVENT_TYPES } from '../../models/event';
import { z } from 'zod';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { webhookErrors } from './errors';

/** Standard Webhooks asks for at least 24 random bytes; 16 characters is the floor we enforce. */
const SECRET_MIN = 16;

export const subscribeBody = z.object({
  url: z.string().max(2048).meta({ format: 'uri', description: 'An http or https URL that resolves to a public address' }),
  events: z
    .array(z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(', ')}` }))
    .min(1)
    .transform((events) => [...new Set(events)]),
  secret: z.string().min(SECRET_MIN).max(256),
});

export async function subscribeWebhook(s: Engines, p: Principal, body: z.infer<typeof subscribeBody>) {
  const refused = await resolvedUrlRefusal(body.url, { allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS });
  if (refused) throw webhookErrors.webhook_url_refused(`url: ${refused}`);
  const limit = s.config.WEBHOOK_SUBSCRIPTIONS_PER_ORG;
  const full = () =>
    webhookErrors.webhook_subscription_limit(
      `This organization already has ${limit} webhook subscriptions, the most allowed; remove one first`,
    );
  const count = () => WebhookSubscription.countDocuments(orgFilter(p.organizationId));
  if ((await count()) >= limit) throw full();
  const sub = await WebhookSubscription.create({
    organization_id: p.organizationId,
    url: body.url,
    events: body.events,
    secret_encrypted: encryptSecret(s.config, body.secret),
    created_by: p.userId,
  });
  // Counted again after the insert: of concurrent subscribes at the limit, those that see
  // too many take theirs back, so the organization never keeps more than the limit.
  if ((await count()) > limit) {
    await WebhookSubscription.deleteOne({ _id: sub._id });
    throw full();
  }
  return sub;
}
