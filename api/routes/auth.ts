/**
 * Accounts and sessions: register, login (with MFA), refresh with rotation, logout,
 * password reset, MFA self-enrollment with recovery codes.
 */
import { Router, type Request } from 'express';
import { Types, trusted } from 'mongoose';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { decryptSecret, encryptSecret, sha256Hex } from '../../platform/security/crypto';
import { hashPassword, needsRehash, verifyPassword, DECOY_HASH_PROMISE } from '../../platform/security/passwords';
import { opaqueToken, signToken, verifyToken } from '../../services/identity/tokens';
import { checkTotp, newTotpSecret, otpauthUrl } from '../../platform/security/totp';
import { issueRecoveryCodes, spendRecoveryCode } from '../../services/identity/mfa';
import { revokeTokenId } from '../../services/identity/revoked-token';
import { redisKey } from '../../platform/redis';
import { recordEvent, type Actor } from '../../platform/outbox/record-event';
import type { EventType } from '../../models/event';
import { Organization } from '../../models/organization';
import { User, publicUser, type UserDoc } from '../../models/user';
import { Invite } from '../../models/invite';
import { RefreshToken } from '../../models/refresh-token';
import { mailPasswordReset } from '../../services/mail/accounts';
import { authorize, bearerOf, principalOf } from '../http/middleware/auth';
import { jsonBody } from '../http/middleware/body';
import type { RateLimits } from '../http/middleware/rate-limit';
import { AppError, badRequest, conflict, forbidden, unauthorized } from '../../platform/errors';
import { ROLES } from '../../platform/security/rbac';
import { operation, registry } from '../http/openapi';
import { idSchema } from '../../platform/ids';
import { isDuplicateKey } from '../../platform/mongo';

const email = z.email().max(254).transform((e) => e.toLowerCase());
const password = z.string().min(8, 'must be at least 8 characters').max(256);

const registerBody = z.object({
  email,
  password,
  full_name: z.string().trim().min(1).max(200),
  organization_name: z.string().trim().min(1).max(200).optional(),
  invite_token: z.string().min(1).max(200).optional(),
});
const loginBody = z.object({ email, password: z.string().min(1).max(256) });
const token = z.string().min(1).max(2048);
const refreshBody = z.object({ refresh_token: token });
const logoutBody = z.object({ refresh_token: token.optional() }).optional();
const mfaCode = z.string().max(32).meta({ description: 'A 6-digit TOTP code, or one of the recovery codes (each works once)' });
const mfaVerifyBody = z.object({ mfa_token: token, code: mfaCode });
/** Replacing an enrolled secret takes one of these: what a stolen access token does not carry. */
const mfaSetupBody = z.object({ code: mfaCode.optional(), password: z.string().min(1).max(256).optional() }).optional();
const mfaEnableBody = z.object({ code: z.string().max(16) });
const resetRequestBody = z.object({ email });
const resetBody = z.object({ token, password });

/** publicUser (models/user.ts). */
const userSchema = registry.register('User', z.object({ id: idSchema, email: z.email(), full_name: z.string(), organization_id: idSchema, role: z.enum(ROLES) }));
const tokensSchema = registry.register('Tokens', z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int().meta({ description: 'Seconds until the access token expires' }),
  refresh_expires_in: z.number().int(),
}));
const sessionSchema = registry.register('Session', tokensSchema.extend({ user: userSchema }));
const enrollmentSchema = registry.register('MfaEnrollment', z.object({ secret: z.string(), otpauth_url: z.url() }));
const mfaChallenge = registry.register('MfaChallenge', z.object({
  mfa_required: z.literal(true),
  mfa_token: z.string().meta({ description: 'Single use; send it with a TOTP code to /auth/mfa/verify' }),
  expires_in: z.number().int(),
  mfa_enrollment: enrollmentSchema.optional().meta({ description: 'Present when the user has not enrolled yet' }),
}));
const recoveryCodes = z.array(z.string()).meta({ description: 'One-time codes for when the authenticator is lost, shown only here: each replaces a TOTP code once at /auth/mfa/verify. New codes replace earlier ones.' });

const tag = 'Auth';
operation({
  path: '/auth/register', method: 'post', tag, public: true, summary: 'Register: a new organization with its owner, or join one with an invitation\'s token',
  description: 'Only `invite_token` joins an inviting organization (the email must be the invited one); without it the registration creates a new organization, whatever invitations exist for the address. Joining an organization that requires MFA answers an MFA challenge with an enrollment instead of a session.',
  body: registerBody,
  responses: { 201: { description: 'Signed in, or an MFA challenge', schema: z.union([sessionSchema, mfaChallenge]) }, 400: 'Invalid input, or an invalid, expired or foreign invite_token', 409: 'The email is already registered' },
});
operation({ path: '/auth/login', method: 'post', tag, public: true, summary: 'Log in; answers an MFA challenge when the user or organization requires MFA', body: loginBody, responses: { 200: { description: 'A session, or an MFA challenge', schema: z.union([sessionSchema, mfaChallenge]) }, 401: 'Invalid email or password' } });
operation({
  path: '/auth/mfa/verify', method: 'post', tag, public: true, summary: 'Complete an MFA login with a TOTP code or a recovery code', body: mfaVerifyBody,
  responses: { 200: { description: 'Signed in; `recovery_codes` when this verification enrolled the user', schema: sessionSchema.extend({ recovery_codes: recoveryCodes.optional() }) }, 401: 'Invalid or used mfa_token, or wrong code' },
});
operation({ path: '/auth/refresh', method: 'post', tag, public: true, summary: 'Rotate a refresh token; reuse of a spent one revokes the whole session', body: refreshBody, responses: { 200: { description: 'New tokens', schema: tokensSchema }, 401: 'Invalid, expired or reused refresh token' } });
operation({ path: '/auth/password/reset-request', method: 'post', tag, public: true, summary: 'Send a password reset code (answers the same whether or not the address exists)', body: resetRequestBody, responses: { 202: { description: 'Accepted', schema: z.object({ detail: z.string() }) } } });
operation({ path: '/auth/password/reset', method: 'post', tag, public: true, summary: 'Set a new password with a reset code; ends every existing session', body: resetBody, responses: { 204: 'Password changed' } });
operation({ path: '/auth/logout', method: 'post', tag, summary: 'Revoke the access token, and the refresh token\'s session when given', body: logoutBody.unwrap(), responses: { 204: 'Logged out' } });
operation({
  path: '/auth/mfa/setup', method: 'post', tag, summary: 'Start TOTP enrollment: a new secret awaiting its first code',
  description: 'A user who already has MFA must send a current `code` (TOTP or recovery code) or their `password` to replace it; five wrong ones in 15 minutes block further attempts for that time.',
  body: mfaSetupBody.unwrap(),
  responses: { 200: { description: 'The secret', schema: enrollmentSchema }, 403: 'MFA is enrolled and no, or a wrong, code or password was sent', 429: 'Too many wrong codes or passwords' },
});
operation({
  path: '/auth/mfa/enable', method: 'post', tag, summary: 'Enable MFA with the first code of the pending secret', body: mfaEnableBody,
  responses: { 200: { description: 'Enabled, with new recovery codes', schema: z.object({ mfa_enabled: z.literal(true), recovery_codes: recoveryCodes }) } },
});


/** Access token + a new refresh-token family (or the next token of an existing one). */
export async function issueSession(s: Services, user: UserDoc, family?: { id: string; expiresAt: Date }) {
  const access = signToken(s.config, 'access', {
    userId: user.id,
    organizationId: user.organization_id.toHexString(),
    sessionEpoch: user.session_epoch,
  });
  const refresh = opaqueToken();
  const expiresAt = family?.expiresAt ?? new Date(Date.now() + s.config.REFRESH_TOKEN_TTL_SECONDS * 1000);
  await RefreshToken.create({
    organization_id: user.organization_id,
    user_id: user._id,
    family_id: family?.id ?? new Types.ObjectId().toHexString(),
    token_hash: sha256Hex(refresh),
    expires_at: expiresAt,
  });
  return {
    access_token: access.token,
    refresh_token: refresh,
    token_type: 'bearer' as const,
    expires_in: access.expiresIn,
    refresh_expires_in: Math.max(0, Math.round((expiresAt.getTime() - Date.now()) / 1000)),
  };
}

/**
 * The pending invitation a token stands for. Only the token joins: nobody confirmed that a
 * registering address belongs to whoever types it, so an invitation merely addressed to
 * it must not let them in (nor let an inviter capture a stranger's sign-up).
 */
async function findInvite(invitedEmail: string, token: string) {
  const invite = await Invite.findOne({ token_hash: sha256Hex(token), status: 'pending', expires_at: trusted({ $gt: new Date() }) });
  if (!invite) throw badRequest('invite_token: invalid or expired');
  if (invite.email !== invitedEmail) throw badRequest('email: does not match the invitation');
  return invite;
}

async function register(s: Services, req: Request) {
  const body = registerBody.parse(req.body);
  if (await User.exists({ email: body.email })) throw conflict('email: already registered');
  const invite = body.invite_token ? await findInvite(body.email, body.invite_token) : null;
  const organizationId = invite ? invite.organization_id : (await Organization.create({ name: body.organization_name ?? `${body.full_name}'s organization` }))._id;
  let user: UserDoc;
  try {
    user = await User.create({
      organization_id: organizationId,
      email: body.email,
      full_name: body.full_name,
      password_hash: await hashPassword(body.password),
      role: invite?.role ?? 'owner',
      is_approved: true,
      joined_at: new Date(),
    });
  } catch (err) {
    if (isDuplicateKey(err)) throw conflict('email: already registered');
    throw err;
  }
  if (invite) {
    await Invite.updateOne({ _id: invite._id }, { $set: { status: 'accepted', accepted_at: new Date() } });
    await recordEvent({
      organizationId: organizationId.toHexString(),
      type: 'team.member_joined',
      data: { id: user.id, email: user.email, full_name: user.full_name, role: user.role, invite_id: invite.id },
      actor: { type: 'user', id: user.id, name: user.full_name },
      resource: { type: 'user', id: user.id },
      summary: `${user.full_name} joined the team as ${user.role}`,
    });
  }
  // The organization's MFA rule holds from the first sign-in, not only from the next login.
  return signIn(s, user);
}

/** A new TOTP secret awaiting its first code (kept sealed until then). */
async function startEnrollment(s: Services, user: UserDoc) {
  const secret = newTotpSecret();
  user.mfa_pending_secret_encrypted = encryptSecret(s.config, secret);
  await user.save();
  return { secret, otpauth_url: otpauthUrl(s.config.JWT_ISSUER, user.email, secret) };
}

/** An MFA change of a member, in the activity feed (and to webhook subscribers). */
function recordMfaEvent(user: UserDoc, type: EventType, summary: string, actor: Actor, extra: Record<string, unknown> = {}) {
  return recordEvent({
    organizationId: user.organization_id.toHexString(),
    type,
    data: { id: user.id, email: user.email, full_name: user.full_name, ...extra },
    actor,
    resource: { type: 'user', id: user.id },
    summary,
  });
}

const selfActor = (user: UserDoc): Actor => ({ type: 'user', id: user.id, name: user.full_name });

/** Turns the pending secret into the enrolled one (done by enable, or by the first MFA login); returns new recovery codes. */
async function completeEnrollment(user: UserDoc, sealed: string, step: number): Promise<string[]> {
  const replaced = !!user.mfa_secret_encrypted;
  await User.updateOne({ _id: user._id }, { $set: { mfa_secret_encrypted: sealed, mfa_pending_secret_encrypted: null, mfa_enabled: true, mfa_last_step: step } });
  const codes = await issueRecoveryCodes(user);
  await recordMfaEvent(user, 'team.mfa_enabled', replaced ? `${user.full_name} moved MFA to a new authenticator` : `${user.full_name} enabled MFA`, selfActor(user), { replaced });
  return codes;
}

type SecondFactor = { kind: 'totp'; recoveryCodes?: string[] } | { kind: 'recovery_code'; left: number };

/**
 * Checks a second factor: one of the user's recovery codes (spent by this check), or a
 * TOTP code of the enrolled secret, or else of the pending one (which it then enrolls,
 * answering the new recovery codes).
 */
async function passSecondFactor(s: Services, user: UserDoc, code: string): Promise<SecondFactor | null> {
  const left = user.mfa_secret_encrypted ? await spendRecoveryCode(user, code) : null;
  if (left !== null) {
    await recordMfaEvent(user, 'team.mfa_recovery_code_used', `${user.full_name} signed in with a recovery code (${left} left)`, selfActor(user), { recovery_codes_left: left });
    return { kind: 'recovery_code', left };
  }
  const sealed = user.mfa_secret_encrypted ?? user.mfa_pending_secret_encrypted;
  if (!sealed) return null;
  const step = await checkTotp(decryptSecret(s.config, sealed), code, user.mfa_last_step ?? null);
  if (step === null) return null;
  if (!user.mfa_secret_encrypted) return { kind: 'totp', recoveryCodes: await completeEnrollment(user, sealed, step) };
  // Only a later step is accepted next time. The update is conditional so two requests cannot both use one
  // code: atomic on MongoDB, not on FerretDB 1.24, which applies it as a read and a separate write (SECURITY.md).
  const recorded = await User.findOneAndUpdate({ _id: user._id, mfa_last_step: user.mfa_last_step ?? null }, { $set: { mfa_last_step: step } });
  return recorded ? { kind: 'totp' } : null;
}

/** After the password (or an invitation): a session, or the MFA challenge the user or their organization asks for. */
async function signIn(s: Services, user: UserDoc) {
  const org = await Organization.findById(user.organization_id);
  if (org?.mfa_required || user.mfa_enabled) {
    const mfa = signToken(s.config, 'mfa', { userId: user.id, organizationId: user.organization_id.toHexString(), sessionEpoch: user.session_epoch });
    const enrollment = user.mfa_secret_encrypted ? {} : { mfa_enrollment: await startEnrollment(s, user) };
    return { mfa_required: true, mfa_token: mfa.token, expires_in: mfa.expiresIn, ...enrollment };
  }
  return { ...(await issueSession(s, user)), user: publicUser(user) };
}

async function login(s: Services, req: Request) {
  const body = loginBody.parse(req.body);
  const user = await User.findOne({ email: body.email });
  // Always run scrypt, so an unknown email takes as long as a wrong password.
  const ok = await verifyPassword(body.password, user?.password_hash ?? (await DECOY_HASH_PROMISE));
  if (!user || !ok) throw unauthorized('Invalid email or password');
  // A hash made with older parameters is replaced now that the password is at hand; the
  // condition keeps a password reset made meanwhile.
  if (needsRehash(user.password_hash)) {
    await User.updateOne({ _id: user._id, password_hash: user.password_hash }, { $set: { password_hash: await hashPassword(body.password) } });
  }
  return signIn(s, user);
}

async function verifyMfa(s: Services, req: Request) {
  const body = mfaVerifyBody.parse(req.body);
  const claims = verifyToken(s.config, 'mfa', body.mfa_token);
  if (!claims) throw unauthorized('Invalid or expired mfa_token');
  // Single use: spent by this attempt whatever the code, so guesses need a new password login each.
  if (!(await revokeTokenId(s, claims.jti, new Date(claims.exp * 1000), 'mfa_used'))) throw unauthorized('mfa_token already used');
  const user = await User.findOne({ _id: claims.sub, organization_id: claims.org });
  if (!user || user.session_epoch !== claims.sev) throw unauthorized('Invalid or expired mfa_token');
  const passed = await passSecondFactor(s, user, body.code);
  if (!passed) throw unauthorized('Invalid code');
  const recovery = passed.kind === 'totp' && passed.recoveryCodes ? { recovery_codes: passed.recoveryCodes } : {};
  return { ...(await issueSession(s, user)), user: publicUser(user), ...recovery };
}

async function refresh(s: Services, req: Request) {
  const body = refreshBody.parse(req.body);
  const now = new Date();
  const presented = await RefreshToken.findOne({ token_hash: sha256Hex(body.refresh_token) });
  if (!presented || presented.expires_at <= now) throw unauthorized('Invalid or expired refresh token');
  // Atomic claim: of two requests with one token, one wins and the other counts as reuse.
  const claimed = await RefreshToken.findOneAndUpdate({ _id: presented._id, used_at: null, revoked_at: null }, { $set: { used_at: now } });
  if (!claimed) {
    await RefreshToken.updateMany({ family_id: presented.family_id, revoked_at: null }, { $set: { revoked_at: now } });
    throw unauthorized('Refresh token reuse detected; the session has been revoked');
  }
  const user = await User.findOne({ _id: presented.user_id, organization_id: presented.organization_id });
  if (!user) throw unauthorized('Invalid or expired refresh token');
  return issueSession(s, user, { id: presented.family_id, expiresAt: presented.expires_at });
}

async function requestPasswordReset(s: Services, req: Request) {
  const body = resetRequestBody.parse(req.body);
  const user = await User.findOne({ email: body.email });
  if (user) {
    const resetToken = opaqueToken();
    user.password_reset_hash = sha256Hex(resetToken);
    user.password_reset_expires_at = new Date(Date.now() + s.config.PASSWORD_RESET_TTL_SECONDS * 1000);
    await user.save();
    await mailPasswordReset(s, user, resetToken, user.password_reset_expires_at);
  }
}

async function resetPassword(req: Request) {
  const body = resetBody.parse(req.body);
  const user = await User.findOneAndUpdate(
    { password_reset_hash: sha256Hex(body.token), password_reset_expires_at: trusted({ $gt: new Date() }) },
    { $set: { password_reset_hash: null, password_reset_expires_at: null } },
    { returnDocument: 'after' },
  );
  if (!user) throw badRequest('token: invalid or expired');
  // A new password ends every existing session: access tokens carry the old epoch. An MFA
  // enrollment such a session started is dropped too; the enrolled secret stays, so the
  // reset gives its owner back the account, not whoever can read their mail.
  user.password_hash = await hashPassword(body.password);
  user.session_epoch += 1;
  user.mfa_pending_secret_encrypted = null;
  await user.save();
  await RefreshToken.updateMany({ user_id: user._id, revoked_at: null }, { $set: { revoked_at: new Date() } });
}

/** The public auth routes (no bearer credential), each behind its rate limit, which counts before the body is read. */
export function publicAuthRouter(s: Services, limits: RateLimits): Router {
  const router = Router();
  const json = jsonBody(s.config);
  router.post('/auth/register', limits.register, json, async (req, res) => {
    res.status(201).json(await register(s, req));
  });
  router.post('/auth/login', limits.login, json, async (req, res) => {
    res.json(await limits.loginAttempt(req, () => login(s, req)));
  });
  router.post('/auth/mfa/verify', limits.default, json, async (req, res) => {
    res.json(await limits.mfaAttempt(req, () => verifyMfa(s, req)));
  });
  router.post('/auth/refresh', limits.default, json, async (req, res) => {
    res.json(await refresh(s, req));
  });
  router.post('/auth/password/reset-request', limits.passwordReset, json, async (req, res) => {
    await requestPasswordReset(s, req);
    res.status(202).json({ detail: 'If the address is registered, a reset code has been sent to it' });
  });
  router.post('/auth/password/reset', limits.default, json, async (req, res) => {
    await resetPassword(req);
    res.status(204).end();
  });
  return router;
}

/** Wrong proofs at MFA setup, per user: a stolen token gets a few guesses, not one a second. */
const PROOF_FAILURES = { points: 5, duration: 900 };

/** Auth routes for a signed-in user (mounted after `authenticate`). */
export function authRouter(s: Services): Router {
  const router = Router();
  const limiterOptions = { ...PROOF_FAILURES, keyPrefix: redisKey(s.config, 'rl', 'mfa-proof') };
  const proofFailures = new RateLimiterRedis({ ...limiterOptions, storeClient: s.redis, insuranceLimiter: new RateLimiterMemory(limiterOptions) });

  /** Before an enrolled secret is replaced: a current code (TOTP or recovery) or the password. */
  async function proveMfaOwner(user: UserDoc, proof: z.infer<typeof mfaSetupBody>) {
    const key = user.id;
    const spent = await proofFailures.get(key);
    if (spent && spent.consumedPoints >= PROOF_FAILURES.points) {
      throw new AppError(429, 'Too many wrong codes or passwords; try again later', { 'Retry-After': String(Math.max(1, Math.ceil(spent.msBeforeNext / 1000))) });
    }
    if (!proof?.code && !proof?.password) throw forbidden('MFA is enrolled: send a current code or your password to replace it');
    const ok = proof.password ? await verifyPassword(proof.password, user.password_hash) : (await passSecondFactor(s, user, proof.code!)) !== null;
    if (!ok) {
      await proofFailures.penalty(key);
      throw forbidden('Wrong code or password');
    }
  }

  router.post('/auth/logout', async (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw badRequest('API keys are revoked with DELETE /settings/api-keys/:id');
    const body = logoutBody.parse(req.body);
    const claims = verifyToken(s.config, 'access', bearerOf(req) ?? '');
    if (!claims) throw unauthorized();
    await revokeTokenId(s, claims.jti, new Date(claims.exp * 1000), 'logout');
    if (body?.refresh_token) {
      const presented = await RefreshToken.findOne({ token_hash: sha256Hex(body.refresh_token), user_id: p.userId });
      if (presented) await RefreshToken.updateMany({ family_id: presented.family_id, revoked_at: null }, { $set: { revoked_at: new Date() } });
    }
    res.status(204).end();
  });

  router.post('/auth/mfa/setup', authorize('profile:manage'), async (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw badRequest('MFA is enrolled by a signed-in user, not an API key');
    const body = mfaSetupBody.parse(req.body);
    const user = await User.findOne({ _id: p.userId, organization_id: p.organizationId });
    if (!user) throw unauthorized();
    if (user.mfa_secret_encrypted) await proveMfaOwner(user, body);
    res.json(await startEnrollment(s, user));
  });

  router.post('/auth/mfa/enable', authorize('profile:manage'), async (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw badRequest('MFA is enrolled by a signed-in user, not an API key');
    const body = mfaEnableBody.parse(req.body);
    const user = await User.findOne({ _id: p.userId, organization_id: p.organizationId });
    if (!user) throw unauthorized();
    if (!user.mfa_pending_secret_encrypted) throw badRequest('code: call POST /auth/mfa/setup first');
    const sealed = user.mfa_pending_secret_encrypted;
    const step = await checkTotp(decryptSecret(s.config, sealed), body.code, null);
    if (step === null) throw badRequest('code: invalid');
    res.json({ mfa_enabled: true, recovery_codes: await completeEnrollment(user, sealed, step) });
  });

  return router;
}
