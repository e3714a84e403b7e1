/**
 * Accounts and sessions: register, login (with MFA), refresh with rotation, logout,
 * password reset, email verification, MFA self-enrollment with recovery codes (services/identity/).
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { badRequest } from '../../platform/errors';
import { enableMfa, mfaEnableBody, mfaSetup, mfaSetupBody } from '../../services/identity/enroll-mfa';
import { logIn, loginBody, mfaVerifyBody, verifyMfaLogin } from '../../services/identity/log-in';
import { registerBody, registerUser } from '../../services/identity/register-user';
import { requestPasswordReset, resetBody, resetPassword, resetRequestBody } from '../../services/identity/reset-password';
import { endSession, logoutBody, refreshBody, refreshSession } from '../../services/identity/session';
import { signedInUser } from '../../services/identity/signed-in-user';
import { resendEmailVerification, verifyEmail, verifyEmailBody } from '../../services/identity/verify-email';
import { authorize, bearerOf, principalOf } from '../http/middleware/auth';
import { jsonBody } from '../http/middleware/body';
import type { RateLimits } from '../http/middleware/rate-limit';
import '../operations/auth';

/** The public auth routes (no bearer credential), each behind its rate limit, which counts before the body is read. */
export function publicAuthRouter(s: Engines, limits: RateLimits): Router {
  const router = Router();
  const json = jsonBody(s.config);
  router.post('/register', limits.register, json, async (req, res) => {
    res.status(201).json(await registerUser(s, registerBody.parse(req.body)));
  });
  router.post('/login', limits.login, json, async (req, res) => {
    res.json(await limits.loginAttempt(req, () => logIn(s, loginBody.parse(req.body))));
  });
  router.post('/mfa/verify', limits.default, json, async (req, res) => {
    res.json(await limits.mfaAttempt(req, () => verifyMfaLogin(s, mfaVerifyBody.parse(req.body))));
  });
  router.post('/refresh', limits.default, json, async (req, res) => {
    res.json(await refreshSession(s, refreshBody.parse(req.body)));
  });
  router.post('/password/reset-request', limits.passwordReset, json, async (req, res) => {
    await requestPasswordReset(s, resetRequestBody.parse(req.body));
    res.status(202).json({ detail: 'If the address is registered, a reset code has been sent to it' });
  });
  router.post('/password/reset', limits.default, json, async (req, res) => {
    await resetPassword(resetBody.parse(req.body));
    res.status(204).end();
  });
  router.post('/email/verify', limits.default, json, async (req, res) => {
    await verifyEmail(verifyEmailBody.parse(req.body));
    res.status(204).end();
  });
  return router;
}

/** Auth routes for a signed-in user (mounted after `authenticate`). */
export function authRouter(s: Engines, limits: RateLimits): Router {
  const router = Router();
  const setUpMfa = mfaSetup(s);

  router.post('/logout', async (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw badRequest('API keys are revoked with DELETE /settings/api-keys/:id');
    await endSession(s, p.userId, bearerOf(req) ?? '', logoutBody.parse(req.body));
    res.status(204).end();
  });

  // Each one mails the address: limited like reset requests, per user.
  router.post('/email/verify/resend', limits.verificationResend, async (req, res) => {
    await resendEmailVerification(s, principalOf(req));
    res.status(202).json({ detail: 'A new verification link has been sent to your address' });
  });

  router.post('/mfa/setup', authorize('profile:manage'), async (req, res) => {
    const user = await signedInUser(principalOf(req));
    res.json(await setUpMfa(user, mfaSetupBody.parse(req.body)));
  });

  router.post('/mfa/enable', authorize('profile:manage'), async (req, res) => {
    const user = await signedInUser(principalOf(req));
    res.json(await enableMfa(s, user, mfaEnableBody.parse(req.body)));
  });

  return router;
}
