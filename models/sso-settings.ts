import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin } from './base';

export const SSO_ROLES = ['admin', 'member', 'viewer'] as const;

/**
 * An organization's OpenID Connect sign-in: its provider, the client it registered there, and
 * who may come in through it. One per organization; `slug` names the organization in
 * `/auth/sso/<slug>/start`. The client secret is kept sealed (AES-256-GCM) and never returned.
 */
const schema = new Schema({
  organization_id: { type: Schema.Types.ObjectId, required: true, unique: true, immutable: true },
  slug: { type: String, required: true, unique: true },
  enabled: { type: Boolean, default: false },
  issuer: { type: String, required: true },
  client_id: { type: String, required: true },
  client_secret_sealed: { type: String, default: null },
  allowed_domains: { type: [String], default: () => [] },
  default_role: { type: String, enum: SSO_ROLES, default: 'member' },
  auto_provision: { type: Boolean, default: false },
  enforce_sso: { type: Boolean, default: false },
  group_role_map: { type: [{ _id: false, group: String, role: { type: String, enum: SSO_ROLES } }], default: () => [] },
});
schema.plugin(basePlugin, { hidden: ['client_secret_sealed'] });

export type SsoSettingsDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const SsoSettings = model('SsoSettings', schema, 'sso_settings');
