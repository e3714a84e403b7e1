/** The identity feature's own error codes (accounts, members, MFA, API keys, organization-wide limits, email verification, SSO). */
import { defineErrors } from '../../platform/errors';

export const identityErrors = defineErrors({
  email_taken: { status: 409, meaning: 'The email address is already registered' },
  already_member: { status: 409, meaning: 'The invited address already belongs to a user' },
  mfa_proof_required: { status: 403, meaning: 'MFA is enrolled: a current code or the password is needed to replace it' },
  mfa_proof_wrong: { status: 403, meaning: 'The code or password given as proof is wrong' },
  mfa_reset_self: { status: 403, meaning: 'An owner replaces their own MFA through /auth/mfa/setup, not the member reset' },
  owner_role_reserved: { status: 403, meaning: 'Only an owner may grant or remove the owner role' },
  last_owner: { status: 409, meaning: 'The organization must keep at least one owner' },
  api_key_limit_reached: {
    status: 409,
    meaning: 'The organization holds API_KEYS_PER_ORG keys, the most allowed; revoke one first',
  },
  organization_rate_limited: {
    status: 429,
    meaning: "The organization's principals together used its requests for this minute; wait `Retry-After` seconds",
  },
  email_verification_invalid: {
    status: 400,
    meaning: 'The email verification token is unknown, used or expired; ask for a new link',
  },
  email_already_verified: { status: 409, meaning: "The caller's email address is already verified" },
  sso_required: { status: 403, meaning: "The organization enforces SSO for this address's domain: sign in through its identity provider" },
  sso_not_configured: { status: 404, meaning: 'No organization signs in with SSO under that name, or its SSO is disabled' },
  sso_provider_unavailable: { status: 502, meaning: "The organization's identity provider could not be reached or answered wrongly" },
  sso_sign_in_failed: {
    status: 401,
    meaning: 'The sign-in could not be verified: state, browser binding, code, ID token signature, issuer, audience, expiry or nonce',
  },
  sso_email_unverified: { status: 403, meaning: 'The provider did not vouch for the email address (email_verified is not true)' },
  sso_domain_not_allowed: { status: 403, meaning: "The email's domain is not one the organization allows for SSO" },
  sso_not_provisioned: {
    status: 403,
    meaning: 'No member has this address, and the organization does not create members at first sign-in',
  },
  sso_other_organization: { status: 403, meaning: 'The provider account or its email belongs to a member of another organization' },
  sso_link_invalid: { status: 400, meaning: 'The SSO link confirmation is unknown, used or expired' },
});
