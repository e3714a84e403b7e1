import { Schema, model, type InferSchemaType, type HydratedDocument } from 'mongoose';
import { ROLES } from '../platform/security/rbac';
import { basePlugin, tenantFields } from './base';

/** An invitation to join an organization; the token is kept as its SHA-256. */
const schema = new Schema({
  ...tenantFields,
  email: { type: String, required: true, lowercase: true, trim: true },
  role: { type: String, enum: ROLES, required: true },
  token_hash: { type: String, required: true, unique: true },
  status: { type: String, enum: ['pending', 'accepted', 'replaced'], default: 'pending' },
  invited_by: { type: Schema.Types.ObjectId, required: true },
  expires_at: { type: Date, required: true },
  accepted_at: { type: Date, default: null },
});
schema.plugin(basePlugin, { hidden: ['token_hash'] });
schema.index({ email: 1, status: 1 });

export type InviteDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Invite = model('Invite', schema, 'invites');

export function inviteView(i: InviteDoc) {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    status: i.status,
    invited_by: i.invited_by.toHexString(),
    expires_at: i.expires_at.toISOString(),
    created_at: (i.get('created_at') as Date).toISOString(),
  };
}
