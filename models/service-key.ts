import { Schema, model } from 'mongoose';

/**
 * Keys the service generates for itself when none is configured (local runs), stored
 * encrypted so the API and every worker use the same one.
 */
const schema = new Schema(
  {
    _id: { type: String, required: true },
    private_key_encrypted: { type: String, required: true },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: false }, versionKey: false },
);

export const ServiceKey = model('ServiceKey', schema, 'service_keys');
