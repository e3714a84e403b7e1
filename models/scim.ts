import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * The bearer token an organization's identity provider provisions with (`/scim/v2`): one per
 * organization (a new one replaces it), kept only as its SHA-256.
 */
const tokenSchema = new Schema({
  organization_id: { type: Schema.Types.ObjectId, required: true, unique: true, immutable: true },
  token_hash: { type: String, required: true, unique: true },
  /** The first characters, so people can tell which token is in use. */
  prefix: { type: String, required: true },
  created_by: { type: Schema.Types.ObjectId, required: true },
  last_used_at: { type: Date, default: null },
});
tokenSchema.plugin(basePlugin, { hidden: ['token_hash'] });

export const ScimToken = model('ScimToken', tokenSchema, 'scim_tokens');

/**
 * A SCIM Group: a name the provider keeps and its members. Membership gives roles through the
 * SSO settings' `group_role_map`; `display_name` is unique within the organization.
 */
const groupSchema = new Schema({
  ...tenantFields,
  display_name: { type: String, required: true },
  external_id: { type: String, default: null },
  member_ids: { type: [Schema.Types.ObjectId], default: () => [] },
});
groupSchema.plugin(basePlugin);
groupSchema.index({ organization_id: 1, display_name: 1 }, { unique: true });

export type ScimGroupDoc = HydratedDocument<InferSchemaType<typeof groupSchema>>;
export const ScimGroup = model('ScimGroup', groupSchema, 'scim_groups');
