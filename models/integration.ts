import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const INTEGRATION_TYPES = ['slack', 'teams', 'salesforce', 'hubspot', 'google_drive', 'clio'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];
export const INTEGRATION_STATUSES = ['connected', 'error', 'disconnected'] as const;

/**
 * One connected third-party tool of an organization (at most one per type). Credentials
 * are sealed with platform/security/crypto and never serialized; `config` holds only non-secret
 * settings (channel, notify_on, folder id, base_url, ...).
 */
const schema = new Schema(
  {
    ...tenantFields,
    type: { type: String, enum: INTEGRATION_TYPES, required: true },
    status: { type: String, enum: INTEGRATION_STATUSES, default: 'connected' },
    config: { type: Schema.Types.Mixed, default: {} },
    /** AES-GCM sealed JSON of the kind's secrets (tokens, webhook URLs). */
    credentials_encrypted: { type: String, default: null },
    connected_at: { type: Date, required: true },
    connected_by: { type: Schema.Types.ObjectId, default: null },
    last_sync_at: { type: Date, default: null },
    last_error: { type: String, default: null },
    /** The last sync's summary (counts, workflow id). */
    last_sync: { type: Schema.Types.Mixed, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin, { hidden: ['credentials_encrypted'] });
schema.index({ organization_id: 1, type: 1 }, { unique: true });

export type IntegrationDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Integration = model('Integration', schema, 'integrations');
