/**
 * SCIM 2.0 (`/scim/v2`, RFC 7644) for the organization's identity provider, with the
 * organization's SCIM token; and the token itself (`/settings/scim`, owners and admins).
 * Bodies and answers are `application/scim+json`; errors take the SCIM error schema.
 */
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { Engines } from '../../platform/engines';
import { AppError } from '../../platform/errors';
import { scimErrorBody, scimErrors } from '../../services/scim/errors';
import { listOf, resourceType, RESOURCE_TYPES, schemaNamed, SCHEMAS, SERVICE_PROVIDER_CONFIG } from '../../services/scim/discovery';
import { patchBody } from '../../services/scim/patch';
import { listQuery, project, projectionQuery } from '../../services/scim/resources';
import { authenticateScim, createScimToken, revokeScimToken, scimTokenView } from '../../services/scim/scim-token';
import { createScimUser, deleteScimUser, getScimUser, listScimUsers, patchScimUser, replaceScimUser } from '../../services/scim/users';
import {
  createScimGroup,
  deleteScimGroup,
  getScimGroup,
  listScimGroups,
  patchScimGroup,
  replaceScimGroup,
} from '../../services/scim/groups';
import { ERROR_CODE_HEADER, toAppError } from '../http/errors';
import { authorize, bearerOf, principalOf } from '../http/middleware/auth';
import '../operations/scim';

const SCIM_JSON = 'application/scim+json; charset=utf-8';

function send(res: Response, status: number, body: unknown, location?: string): void {
  if (location) res.setHeader('Location', location);
  res.status(status).type(SCIM_JSON).send(JSON.stringify(body));
}

const idOf = (req: Request) => String(req.params.id);

export function scimRouter(s: Engines): Router {
  const router = Router();
  const base = `${s.config.publicBaseUrl}/api/v1/scim/v2`;
  router.use(express.json({ limit: s.config.BODY_LIMIT, type: ['application/scim+json', 'application/json'] }));
  router.use(async (req, _res, next) => {
    req.principal = await authenticateScim(s, bearerOf(req));
    next();
  });

  router.get('/ServiceProviderConfig', (_req, res) => send(res, 200, SERVICE_PROVIDER_CONFIG));
  router.get('/ResourceTypes', (_req, res) => send(res, 200, listOf(RESOURCE_TYPES)));
  router.get('/ResourceTypes/:name', (req, res) => {
    send(res, 200, resourceType(String(req.params.name)));
  });
  router.get('/Schemas', (_req, res) => send(res, 200, listOf(SCHEMAS)));
  router.get('/Schemas/:name', (req, res) => {
    send(res, 200, schemaNamed(String(req.params.name)));
  });

  const resources = [
    {
      path: '/Users',
      list: listScimUsers,
      get: getScimUser,
      create: createScimUser,
      replace: replaceScimUser,
      patch: patchScimUser,
      remove: deleteScimUser,
    },
    {
      path: '/Groups',
      list: listScimGroups,
      get: getScimGroup,
      create: createScimGroup,
      replace: replaceScimGroup,
      patch: patchScimGroup,
      remove: deleteScimGroup,
    },
  ];
  for (const r of resources) {
    router.get(r.path, async (req, res) => {
      const list = await r.list(principalOf(req), listQuery.parse(req.query), base);
      const fields = projectionQuery.parse(req.query);
      send(res, 200, { ...list, Resources: list.Resources.map((x) => project(x, fields)) });
    });
    router.post(r.path, async (req, res) => {
      const made = await r.create(s, principalOf(req), req.body, base);
      send(res, 201, made, `${base}${r.path}/${made.id as string}`);
    });
    router.get(`${r.path}/:id`, async (req, res) => {
      send(res, 200, project(await r.get(principalOf(req), idOf(req), base), projectionQuery.parse(req.query)));
    });
    router.put(`${r.path}/:id`, async (req, res) => {
      send(res, 200, await r.replace(s, principalOf(req), idOf(req), req.body, base));
    });
    router.patch(`${r.path}/:id`, async (req, res) => {
      send(res, 200, await r.patch(s, principalOf(req), idOf(req), patchBody.parse(req.body), base));
    });
    router.delete(`${r.path}/:id`, async (req, res) => {
      await r.remove(s, principalOf(req), idOf(req));
      res.status(204).end();
    });
  }

  router.use((req) => {
    throw new AppError('no_route', `No SCIM endpoint ${req.method} ${req.path}`);
  });
  const scimErrorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const known =
      toAppError(err) ?? (err instanceof SyntaxError ? scimErrors.scim_invalid_syntax('The body is not valid JSON') : undefined);
    const e = known ?? new AppError('internal_error', 'Internal server error');
    if (!known) s.logger.error({ err, reqId: req.id, path: req.path }, 'SCIM request failed');
    res.set(e.headers).set(ERROR_CODE_HEADER, e.code);
    send(res, e.status, scimErrorBody(e));
  };
  router.use(scimErrorHandler);
  return router;
}

export function scimSettingsRouter(): Router {
  const router = Router();
  const manage = authorize('settings:manage');
  router.get('/', manage, async (req, res) => {
    res.json(await scimTokenView(principalOf(req)));
  });
  router.post('/token', manage, async (req, res) => {
    res.status(201).json(await createScimToken(principalOf(req)));
  });
  router.delete('/token', manage, async (req, res) => {
    await revokeScimToken(principalOf(req));
    res.status(204).end();
  });
  return router;
}
