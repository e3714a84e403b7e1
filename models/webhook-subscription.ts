import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

const schema = new Schema({
  ...tenantFields,
  url: { type: String, required: true },
  events: { type: [String], required: true },
  /** AES-GCM sealed (lib/crypto); never serialized. */
  secret_encrypted: { type: String, required: true },
  active: { type: Boolean, default: true },
  disabled_reason: { type: String, default: null },
  created_by: { type: Schema.Types.ObjectId, default: null },
});
schema.plugin(basePlugin, { hidden: ['secret_encrypted'] });
schema.index({ organization_id: 1, active: 1, events: 1 });

export type WebhookSubscriptionDoc = InferSchemaType<typeof schema>;
export const WebhookSubscription = model('WebhookSubscription', schema, 'webhook_subscriptions');
