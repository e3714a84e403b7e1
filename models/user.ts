import { Schema, model, type InferSchemaType, type HydratedDocument } from 'mongoose';
import { ROLES } from '../platform/security/rbac';
import { basePlugin, tenantFields } from './base';

/** A person who logs in; belongs to exactly one organization (emails are unique service-wide). */
const schema = new Schema({
  ...tenantFields,
  email: { type: String, required: true, unique: true, lowercase: true, trim: true },
  full_name: { type: String, required: true },
  /** scrypt (platform/security/passwords). */
  password_hash: { type: String, required: true },
  role: { type: String, enum: ROLES, required: true },
  is_approved: { type: Boolean, default: true },
  joined_at: { type: Date, default: () => new Date() },
  /** Bumped by a password reset: access tokens carry it, so older sessions stop at once. */
  session_epoch: { type: Number, default: 0 },
  /** AES-GCM sealed TOTP secrets (platform/security/crypto): the enrolled one and one awaiting its first code. */
  mfa_secret_encrypted: { type: String, default: null },
  mfa_pending_secret_encrypted: { type: String, default: null },
  mfa_enabled: { type: Boolean, default: false },
  /** Last accepted TOTP time step, so a code is never accepted twice. */
  mfa_last_step: { type: Number, default: null },
  password_reset_hash: { type: String, default: null, index: true },
  password_reset_expires_at: { type: Date, default: null },
  /** When the address was shown to be theirs: a mailed link opened, or an invitation's token used. */
  email_verified_at: { type: Date, default: null },
  /** SHA-256 of the pending verification link's token, and when it stops working. */
  email_verification_hash: { type: String, default: null, index: true },
  email_verification_expires_at: { type: Date, default: null },
  /** False once deactivated (SCIM `active: false`): no sign-in, no token, until reactivated. */
  active: { type: Boolean, default: true },
  /** What the identity provider calls the member (SCIM `userName`, `externalId`), when it provisions them. */
  scim_user_name: { type: String, default: null },
  scim_external_id: { type: String, default: null },
  scim_given_name: { type: String, default: null },
  scim_family_name: { type: String, default: null },
});
schema.plugin(basePlugin, {
  hidden: [
    'password_hash',
    'session_epoch',
    'mfa_secret_encrypted',
    'mfa_pending_secret_encrypted',
    'mfa_last_step',
    'password_reset_hash',
    'password_reset_expires_at',
    'email_verification_hash',
    'email_verification_expires_at',
  ],
});
schema.index({ organization_id: 1, role: 1 });

export type UserDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const User = model('User', schema, 'users');

/** The User resource of the interface (login responses). */
export function publicUser(u: UserDoc) {
  return { id: u.id, email: u.email, full_name: u.full_name, organization_id: u.organization_id.toHexString(), role: u.role };
}

/** The Team member resource of the interface (member list, role change). */
export function teamMember(u: UserDoc) {
  return {
    id: u.id,
    email: u.email,
    full_name: u.full_name,
    role: u.role,
    is_approved: u.is_approved,
    joined_at: u.joined_at.toISOString(),
  };
}
