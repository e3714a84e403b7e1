/** SSO: the organization's settings (`/settings/sso`) and the OpenID Connect sign-in (`/auth/sso`). */
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { getSsoSettings, saveSsoSettings, ssoSettingsBody, ssoSettingsView, testSsoSettings } from '../../services/identity/sso-settings';
import { confirmSsoLink, finishSso, startSso } from '../../services/identity/sign-in-with-sso';
import { authorize, principalOf } from '../http/middleware/auth';
import { jsonBody } from '../http/middleware/body';
import type { RateLimits } from '../http/middleware/rate-limit';
import '../operations/sso';

const COOKIE = 'sso_binding';
const slugOf = (req: Request) => z.string().min(1).max(100).parse(req.params.slug);

/** The browser binding: readable only by this path, sent back on the provider's top-level redirect (Lax). */
function bindingCookie(s: Engines, value: string): string {
  const secure = s.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return `${COOKIE}=${value}; Path=/api/v1/auth/sso; Max-Age=600; HttpOnly; SameSite=Lax${secure}`;
}

function cookieOf(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

export function ssoPublicRouter(s: Engines, limits: RateLimits): Router {
  const router = Router();
  router.post('/link/confirm', limits.default, jsonBody(s.config), async (req, res) => {
    res.json(await confirmSsoLink(s, z.object({ token: z.string().min(1).max(200) }).parse(req.body).token));
  });
  router.get('/:slug/start', limits.default, async (req, res) => {
    const { location, binding } = await startSso(s, slugOf(req));
    res.setHeader('Set-Cookie', bindingCookie(s, binding));
    res.redirect(302, location);
  });
  router.get('/:slug/callback', limits.login, async (req, res) => {
    const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    const outcome = await finishSso(s, { slug: slugOf(req), query, binding: cookieOf(req) });
    res.setHeader('Set-Cookie', `${COOKIE}=; Path=/api/v1/auth/sso; Max-Age=0; HttpOnly; SameSite=Lax`);
    res.status(outcome.kind === 'link_mailed' ? 202 : 200).json(outcome.body);
  });
  return router;
}

export function ssoSettingsRouter(s: Engines): Router {
  const router = Router();
  const manage = authorize('settings:manage');
  router.get('/', manage, async (req, res) => {
    res.json(ssoSettingsView(s, await getSsoSettings(principalOf(req))));
  });
  router.put('/', manage, async (req, res) => {
    res.json(ssoSettingsView(s, await saveSsoSettings(s, principalOf(req), ssoSettingsBody.parse(req.body))));
  });
  router.post('/test', manage, async (req, res) => {
    res.json(await testSsoSettings(s, principalOf(req)));
  });
  return router;
}
