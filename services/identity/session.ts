/** Sessions: an access token with a rotating refresh token, refreshed once each, ended on logout. */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { unauthorized } from '../../platform/errors';
import { exclusively } from '../../platform/claims';
import { RefreshToken } from '../../models/refresh-token';
import { User, type UserDoc } from '../../models/user';
import { revokeTokenId } from './revoked-token';
import { opaqueToken, signToken, verifyToken } from './tokens';

export const sessionToken = z.string().min(1).max(2048);
export const refreshBody = z.object({ refresh_token: sessionToken });
export const logoutBody = z.object({ refresh_token: sessionToken.optional() }).optional();

/** Ends sessions: the refresh tokens of a user, or of one family (one login), stop working. */
export const revokeRefreshTokens = (which: { user_id: Types.ObjectId } | { family_id: string }, at = new Date()) =>
  RefreshToken.updateMany({ ...which, revoked_at: null }, { $set: { revoked_at: at } });

/** Access token + a new refresh-token family (or the next token of an existing one). */
export async function issueSession(s: Engines, user: UserDoc, family?: { id: string; expiresAt: Date }) {
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
 * Rotates a refresh token; a spent one presented again revokes its whole family. Under the
 * family's claim (platform/claims.ts), so of one token presented many times at once exactly one
 * gets the next pair and every other finds it spent, which is reuse. A conditional write
 * alone let several through on FerretDB 1.24, which applies it as a read and a separate write.
 */
export async function refreshSession(s: Engines, body: z.infer<typeof refreshBody>) {
  const hash = sha256Hex(body.refresh_token);
  const found = await RefreshToken.findOne({ token_hash: hash });
  if (!found || found.expires_at <= new Date()) throw unauthorized('Invalid or expired refresh token');
  const presented = await exclusively('refresh-token-family', found.family_id, async () => {
    const now = new Date();
    const token = await RefreshToken.findById(found._id);
    if (!token || token.used_at || token.revoked_at) {
      await revokeRefreshTokens({ family_id: found.family_id }, now);
      throw unauthorized('Refresh token reuse detected; the session has been revoked');
    }
    await RefreshToken.updateOne({ _id: token._id }, { $set: { used_at: now } });
    return token;
  });
  const user = await User.findOne({ _id: presented.user_id, organization_id: presented.organization_id });
  if (!user || user.active === false) throw unauthorized('Invalid or expired refresh token');
  return issueSession(s, user, { id: presented.family_id, expiresAt: presented.expires_at });
}

/** Revokes the access token, and the refresh token's family when one is given. */
export async function endSession(s: Engines, userId: string, accessToken: string, body: z.infer<typeof logoutBody>) {
  const claims = verifyToken(s.config, 'access', accessToken);
  if (!claims) throw unauthorized();
  await revokeTokenId(s, claims.jti, new Date(claims.exp * 1000), 'logout');
  if (body?.refresh_token) {
    const presented = await RefreshToken.findOne({ token_hash: sha256Hex(body.refresh_token), user_id: userId });
    if (presented) await revokeRefreshTokens({ family_id: presented.family_id });
  }
}
