import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

const schema = new Schema({
  ...tenantFields,
  url: { type: String, required: true },
  events: { type: [String], required: true },
  /** AES-GCM sealed (platform/security/crypto); never serialized. */
  secret_encrypted: { type: String, required: true },
  active: { type: Boolean, default: true },
  disabled_reason: { type: String, default: null },
  created_by: { type: Schema.Types.ObjectId, default: null },
});
schema.plugin(basePlugin, { hidden: ['secret_encrypted'] });
schema.index({ organization_id: 1, active: 1, events: 1 });

export type WebhookSubscriptionDoc = InferSchemaType<typeof schema>;
export const WebhookSubscription = model('WebhookSubscription', schema, 'webhook_subscriptions');

/** The API's view: never the secret. */
export function subscriptionView(sub: InstanceType<typeof WebhookSubscription>) {
  return {
    id: sub.id,
    url: sub.url,
    events: sub.events,
    active: sub.active,
    disabled_reason: sub.disabled_reason ?? null,
    created_at: sub.get('created_at') as Date,
    updated_at: sub.get('updated_at') as Date,
  };
}
