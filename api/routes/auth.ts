/**
 * Accounts and sessions: register, login (with MFA), refresh with rotation, logout,
 * password reset, MFA self-enrollment.
 */
import { Router, type Request } from 'express';
import { Types, trusted } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../lib/services';
import { sha256Hex } from '../../lib/crypto';
import { hashPassword, verifyPassword, DECOY_HASH_PROMISE } from '../../lib/passwords';
import { opaqueToken, signToken } from '../../lib/tokens';
import { recordEvent } from '../../lib/events';
import { Organization } from '../../models/organization';
import { User, publicUser, type UserDoc } from '../../models/user';
import { Invite } from '../../models/invite';
import { RefreshToken } from '../../models/refresh-token';
import { badRequest, conflict, unauthorized } from '../errors';

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

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

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

async function findInvite(invitedEmail: string, token: string | undefined) {
  const now = new Date();
  if (token) {
    const invite = await Invite.findOne({ token_hash: sha256Hex(token), status: 'pending', expires_at: trusted({ $gt: now }) });
    if (!invite) throw badRequest('invite_token: invalid or expired');
    if (invite.email !== invitedEmail) throw badRequest('email: does not match the invitation');
    return invite;
  }
  return Invite.findOne({ email: invitedEmail, status: 'pending', expires_at: trusted({ $gt: now }) }).sort({ created_at: -1 });
}

async function register(s: Services, req: Request) {
  const body = registerBody.parse(req.body);
  if (await User.exists({ email: body.email })) throw conflict('email: already registered');
  const invite = await findInvite(body.email, body.invite_token);
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
  return { ...(await issueSession(s, user)), user: publicUser(user) };
}

async function login(s: Services, req: Request) {
  const body = loginBody.parse(req.body);
  const user = await User.findOne({ email: body.email });
  // Always run scrypt, so an unknown email takes as long as a wrong password.
  const ok = await verifyPassword(body.password, user?.password_hash ?? (await DECOY_HASH_PROMISE));
  if (!user || !ok) throw unauthorized('Invalid email or password');
  return { ...(await issueSession(s, user)), user: publicUser(user) };
}

/** The public auth routes (no bearer credential). */
export function publicAuthRouter(s: Services): Router {
  const router = Router();
  router.post('/auth/register', async (req, res) => {
    res.status(201).json(await register(s, req));
  });
  router.post('/auth/login', async (req, res) => {
    res.json(await login(s, req));
  });
  return router;
}
