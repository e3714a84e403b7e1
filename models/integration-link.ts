import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * Which vendor record or file one contract became in one integration, so a later sync
 * updates that record or file instead of creating another. `key` is the upsert result's:
 * the contract id, or `<contractId>:<copy>` for a further file of it (a signed copy).
 */
const schema = new Schema(
  {
    ...tenantFields,
    integration_id: { type: Schema.Types.ObjectId, required: true },
    contract_id: { type: String, required: true },
    key: { type: String, required: true },
    vendor_id: { type: String, required: true },
    synced_at: { type: Date, required: true },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin);
schema.index({ integration_id: 1, key: 1 }, { unique: true });
schema.index({ integration_id: 1, contract_id: 1 });

/** The contract a result key belongs to. */
export const linkContractId = (key: string) => key.split(':')[0]!;

export type IntegrationLinkDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const IntegrationLink = model('IntegrationLink', schema, 'integration_links');
