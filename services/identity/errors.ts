/** What identity requests can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const identityErrors = defineErrors({
  email_taken: { status: 409, meaning: 'The email address is already registered' },
  already_member: { status: 409, meaning: 'The invited address already belongs to a user' },
  mfa_proof_required: { status: 403, meaning: 'MFA is enrolled: a current code or the password is needed to replace it' },
  mfa_proof_wrong: { status: 403, meaning: 'The code or password given as proof is wrong' },
  mfa_reset_self: { status: 403, meaning: 'An owner replaces their own MFA through /auth/mfa/setup, not the member reset' },
  owner_role_reserved: { status: 403, meaning: 'Only an owner may grant or remove the owner role' },
  last_owner: { status: 409, meaning: 'The organization must keep at least one owner' },
});
