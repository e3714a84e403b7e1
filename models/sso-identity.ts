import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * Who a member is at an identity provider: the pair (issuer, subject), never the email, which
 * a provider lets its users change. The unique index makes a pair belong to one member, and
 * makes linking it an insert that only one of two simultaneous sign-ins can win.
 */
const schema = new Schema({
  ...tenantFields,
  user_id: { type: Schema.Types.ObjectId, required: true, index: true },
  issuer: { type: String, required: true },
  subject: { type: String, required: true },
});
schema.plugin(basePlugin);
schema.index({ issuer: 1, subject: 1 }, { unique: true });

export type SsoIdentityDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const SsoIdentity = model('SsoIdentity', schema, 'sso_identities');

/**
 * A first SSO sign-in whose verified email belongs to an existing password account: the pair is
 * linked only once the account's owner opens the link mailed to that address (token as SHA-256).
 */
const linkSchema = new Schema({
  ...tenantFields,
  user_id: { type: Schema.Types.ObjectId, required: true },
  issuer: { type: String, required: true },
  subject: { type: String, required: true },
  token_hash: { type: String, required: true, unique: true },
  expires_at: { type: Date, required: true },
});
linkSchema.plugin(basePlugin, { hidden: ['token_hash'] });

export const SsoLinkRequest = model('SsoLinkRequest', linkSchema, 'sso_link_requests');
