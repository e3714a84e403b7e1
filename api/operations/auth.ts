/** The OpenAPI description of the auth operations (api/routes/auth.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { ROLES } from '../../platform/security/rbac';
import { mfaEnableBody, mfaSetupBody } from '../../services/identity/enroll-mfa';
import { loginBody, mfaVerifyBody } from '../../services/identity/log-in';
import { registerBody } from '../../services/identity/register-user';
import { resetBody, resetRequestBody } from '../../services/identity/reset-password';
import { logoutBody, refreshBody } from '../../services/identity/session';
import { verifyEmailBody } from '../../services/identity/verify-email';
import { operation, registry } from '../http/openapi';

/** publicUser (models/user.ts). */
const userSchema = registry.register(
  'User',
  z.object({ id: idSchema, email: z.email(), full_name: z.string(), organization_id: idSchema, role: z.enum(ROLES) }),
);
const tokensSchema = registry.register(
  'Tokens',
  z.object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds until the access token expires' }),
    refresh_expires_in: z.number().int(),
  }),
);
const sessionSchema = registry.register('Session', tokensSchema.extend({ user: userSchema }));
const enrollmentSchema = registry.register('MfaEnrollment', z.object({ secret: z.string(), otpauth_url: z.url() }));
const mfaChallenge = registry.register(
  'MfaChallenge',
  z.object({
    mfa_required: z.literal(true),
    mfa_token: z.string().meta({ description: 'Single use; send it with a TOTP code to /auth/mfa/verify' }),
    expires_in: z.number().int(),
    mfa_enrollment: enrollmentSchema.optional().meta({ description: 'Present when the user has not enrolled yet' }),
  }),
);
const recoveryCodes = z.array(z.string()).meta({
  description:
    'One-time codes for when the authenticator is lost, shown only here: each replaces a TOTP code once at /auth/mfa/verify. New codes replace earlier ones.',
});

const tag = 'Auth';
operation({
  path: '/auth/register',
  method: 'post',
  tag,
  public: true,
  summary: "Register: a new organization with its owner, or join one with an invitation's token",
  description:
    'Only `invite_token` joins an inviting organization (the email must be the invited one); without it the registration creates a new organization, whatever invitations exist for the address. Joining an organization that requires MFA answers an MFA challenge with an enrollment instead of a session.',
  body: registerBody,
  responses: {
    201: { description: 'Signed in, or an MFA challenge', schema: z.union([sessionSchema, mfaChallenge]) },
    400: 'Invalid input, or an invalid, expired or foreign invite_token',
    409: 'The email is already registered',
  },
});
operation({
  path: '/auth/login',
  method: 'post',
  tag,
  public: true,
  summary: 'Log in; answers an MFA challenge when the user or organization requires MFA',
  body: loginBody,
  responses: {
    200: { description: 'A session, or an MFA challenge', schema: z.union([sessionSchema, mfaChallenge]) },
    401: 'Invalid email or password',
  },
});
operation({
  path: '/auth/mfa/verify',
  method: 'post',
  tag,
  public: true,
  summary: 'Complete an MFA login with a TOTP code or a recovery code',
  body: mfaVerifyBody,
  responses: {
    200: {
      description: 'Signed in; `recovery_codes` when this verification enrolled the user',
      schema: sessionSchema.extend({ recovery_codes: recoveryCodes.optional() }),
    },
    401: 'Invalid or used mfa_token, or wrong code',
  },
});
operation({
  path: '/auth/refresh',
  method: 'post',
  tag,
  public: true,
  summary: 'Rotate a refresh token; reuse of a spent one revokes the whole session',
  body: refreshBody,
  responses: { 200: { description: 'New tokens', schema: tokensSchema }, 401: 'Invalid, expired or reused refresh token' },
});
operation({
  path: '/auth/password/reset-request',
  method: 'post',
  tag,
  public: true,
  summary: 'Send a password reset code (answers the same whether or not the address exists)',
  body: resetRequestBody,
  responses: { 202: { description: 'Accepted', schema: z.object({ detail: z.string() }) } },
});
operation({
  path: '/auth/password/reset',
  method: 'post',
  tag,
  public: true,
  summary: 'Set a new password with a reset code; ends every existing session',
  body: resetBody,
  responses: { 204: 'Password changed' },
});
operation({
  path: '/auth/email/verify',
  method: 'post',
  tag,
  public: true,
  summary: 'Verify the email address with the token of the mailed link (/verify-email/<token>)',
  description:
    "Registering a new organization mails its owner a link that works once, for `EMAIL_VERIFICATION_TTL_SECONDS` (24 h by default). Until an owner's address is verified the organization sends no signing requests or invitations (403 `email_not_verified`). Joining by invitation verifies the address at once.",
  body: verifyEmailBody,
  responses: { 204: 'Verified', 400: 'Unknown, used or expired token (`email_verification_invalid`)' },
});
operation({
  path: '/auth/email/verify/resend',
  method: 'post',
  tag,
  summary: 'Mail the signed-in user a new verification link (the previous one stops working)',
  description: 'Limited like password reset requests (3 per 5 minutes), per user.',
  responses: {
    202: { description: 'Sent', schema: z.object({ detail: z.string() }) },
    400: 'Called with an API key',
    409: 'The address is already verified (`email_already_verified`)',
    429: 'Too many links asked for',
  },
});
operation({
  path: '/auth/logout',
  method: 'post',
  tag,
  summary: "Revoke the access token, and the refresh token's session when given",
  body: logoutBody.unwrap(),
  responses: { 204: 'Logged out' },
});
operation({
  path: '/auth/mfa/setup',
  method: 'post',
  tag,
  summary: 'Start TOTP enrollment: a new secret awaiting its first code',
  description:
    'A user who already has MFA must send a current `code` (TOTP or recovery code) or their `password` to replace it; five wrong ones in 15 minutes block further attempts for that time.',
  body: mfaSetupBody.unwrap(),
  responses: {
    200: { description: 'The secret', schema: enrollmentSchema },
    403: 'MFA is enrolled and no, or a wrong, code or password was sent',
    429: 'Too many wrong codes or passwords',
  },
});
operation({
  path: '/auth/mfa/enable',
  method: 'post',
  tag,
  summary: 'Enable MFA with the first code of the pending secret',
  body: mfaEnableBody,
  responses: {
    200: {
      description: 'Enabled, with new recovery codes',
      schema: z.object({ mfa_enabled: z.literal(true), recovery_codes: recoveryCodes }),
    },
  },
});
