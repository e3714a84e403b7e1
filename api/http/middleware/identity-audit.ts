/**
 * Writes the identity audit log (services/audit/): every change to access — sign-ins, members,
 * API keys, settings, SCIM — and every read of the log, once its answer is sent, with the
 * caller, address, user agent and outcome. A public sign-in is logged when it succeeds, in the
 * organization of the member it signed in.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../../platform/logger';
import type { AuditCategory } from '../../../models/identity-audit';
import { appendAudit } from '../../../services/audit/append-audit';

/** The category of a path under /api/v1, or null when the request is not an identity matter. */
function categoryOf(method: string, path: string): AuditCategory | null {
  const read = method === 'GET' || method === 'HEAD';
  // Reading the log, and starting an export of it.
  if (path.startsWith('/audit-log')) return read || path === '/audit-log/exports' ? 'exports' : null;
  if (read) return null;
  if (path.startsWith('/auth/')) return 'auth';
  if (path.startsWith('/team/')) return 'membership';
  if (path.startsWith('/settings/api-keys')) return 'api_keys';
  if (path.startsWith('/scim/') || path.startsWith('/settings/scim')) return 'scim';
  if (path.startsWith('/settings/')) return 'settings';
  return null;
}

/** The member a public sign-in answered with (`user` of the token pair). */
function signedIn(res: Response): { id: string; organization_id: string; email: string } | null {
  const body = res.locals.auditBody as { user?: { id?: unknown; organization_id?: unknown; email?: unknown } } | undefined;
  const u = body?.user;
  return typeof u?.id === 'string' && typeof u.organization_id === 'string'
    ? { id: u.id, organization_id: u.organization_id, email: String(u.email) }
    : null;
}

const targetOf = (path: string) => /\/([0-9a-f]{24})(?:\/|$)/.exec(path)?.[1] ?? null;

export function identityAudit(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next) => {
    // As this router sees it: nested routers rewrite req.url while they run.
    const path = req.path;
    const category = categoryOf(req.method, path);
    if (!category) return next();
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      res.locals.auditBody = body;
      return json(body);
    };
    res.on('finish', () => {
      const p = req.principal;
      const person = p ? null : signedIn(res);
      const organizationId = p?.organizationId ?? person?.organization_id;
      if (!organizationId) return;
      void appendAudit({
        organizationId,
        category,
        actor: p ? { type: p.kind, id: p.id, name: p.name } : { type: 'user', id: person!.id, name: person!.email },
        ip: req.ip ?? null,
        user_agent: req.get('user-agent')?.slice(0, 500) ?? null,
        action: `${req.method} ${path.replace(/[0-9a-f]{24}/g, '{id}')}`.slice(0, 300),
        target: targetOf(path),
        result: res.statusCode < 400 ? 'success' : 'failure',
        status: res.statusCode,
      }).catch((err: unknown) => logger.error({ err }, 'identity audit row not written'));
    });
    next();
  };
}
