import { Schema, model, type InferSchemaType, type HydratedDocument } from 'mongoose';
import { ROLES } from '../platform/security/rbac';
import { basePlugin, tenantFields } from './base';

/** A server-to-server credential acting for its organization; only its SHA-256 is kept. */
const schema = new Schema({
  ...tenantFields,
  name: { type: String, required: true },
  /** The first characters of the key, so people can tell their keys apart. */
  prefix: { type: String, required: true },
  key_hash: { type: String, required: true, unique: true },
  role: { type: String, enum: ROLES, required: true },
  created_by: { type: Schema.Types.ObjectId, required: true, index: true },
  last_used_at: { type: Date, default: null },
});
schema.plugin(basePlugin, { hidden: ['key_hash'] });

export type ApiKeyDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const ApiKey = model('ApiKey', schema, 'api_keys');

export function apiKeyView(k: ApiKeyDoc) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    role: k.role,
    created_by: k.created_by.toHexString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    created_at: (k.get('created_at') as Date).toISOString(),
  };
}
