/**
 * Authentication (who is calling) and authorization (may they do this).
 * A bearer value starting with `clk_` is an API key, anything else a JWT access token.
 * The caller's user record is checked on every request (through services/identity/auth-user's cache,
 * which every write to users clears), so a role change or a removal takes effect at once
 * on tokens and keys already issued.
 */
import type { Request, RequestHandler } from 'express';
import { Types } from 'mongoose';
import type { Engines } from '../../../platform/engines';
import type { Principal } from '../../../platform/security/principal';
import { can, type Permission } from '../../../platform/security/rbac';
import { isApiKey, verifyToken } from '../../../services/identity/tokens';
import { isTokenIdRevoked } from '../../../services/identity/revoked-token';
import { authUser } from '../../../services/identity/auth-user';
import { authenticateApiKey } from '../../../services/identity/authenticate-api-key';
import { forbidden, unauthorized } from '../../../platform/errors';

/** The bearer value of the Authorization header, or undefined. */
export function bearerOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

async function userPrincipal(s: Engines, token: string): Promise<Principal | null> {
  const claims = verifyToken(s.config, 'access', token);
  if (!claims || !Types.ObjectId.isValid(claims.sub) || !Types.ObjectId.isValid(claims.org)) return null;
  // Both answered from Redis in the steady state: this runs on every request.
  const [revoked, user] = await Promise.all([isTokenIdRevoked(s, claims.jti), authUser(s, claims.sub, claims.org)]);
  if (revoked || !user || user.session_epoch !== claims.sev) return null;
  return { kind: 'user', id: claims.sub, userId: claims.sub, organizationId: claims.org, role: user.role, name: user.full_name };
}

export function authenticate(s: Engines): RequestHandler {
  return async (req, _res, next) => {
    const bearer = bearerOf(req);
    if (!bearer) throw unauthorized('Missing bearer credential');
    const principal = isApiKey(bearer) ? await authenticateApiKey(s, bearer) : await userPrincipal(s, bearer);
    if (!principal) throw unauthorized('Invalid or expired credential');
    req.principal = principal;
    next();
  };
}

export function principalOf(req: Request): Principal {
  if (!req.principal) throw unauthorized();
  return req.principal;
}

export function authorize(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    if (!can(principalOf(req).role, permission)) throw forbidden();
    next();
  };
}
