/**
 * 405 Method Not Allowed, with `Allow`, for a method the API does not declare on a path it
 * serves; OPTIONS answers 204 with the same `Allow`. The table is the OpenAPI document's
 * operations, which a test keeps equal to the mounted routes, so a path of the API never
 * falls through to "No route" because of its method.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../../../platform/errors';
import { documentedOperations } from '../openapi';

interface PathMethods {
  pattern: RegExp;
  methods: Set<string>;
  /** Template parameters: fewer is more specific (`/webhooks/deliveries` before `/webhooks/{id}`). */
  params: number;
}

/** `/contracts/{id}` as Express matches `/contracts/:id`: any one segment, any case, an optional trailing slash. */
const patternOf = (path: string) =>
  new RegExp(
    `^${path
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}/?$`,
    'i',
  );

function pathTable(apiPrefix: string): PathMethods[] {
  const byPath = new Map<string, Set<string>>();
  for (const op of documentedOperations()) {
    const full = op.root ? op.path : `${apiPrefix}${op.path}`;
    const methods = byPath.get(full) ?? new Set<string>();
    methods.add(op.method.toUpperCase());
    byPath.set(full, methods);
  }
  return [...byPath].map(([path, methods]) => ({ pattern: patternOf(path), methods, params: path.split(/\{\w+\}/).length - 1 }));
}

/** Mounted at the app's root, before the routers; `apiPrefix` is where the API router is mounted. */
export function allowedMethods(apiPrefix: string): RequestHandler {
  // Built on the first request: route modules register their operations when imported.
  let table: PathMethods[] | undefined;
  return (req, res, next) => {
    table ??= pathTable(apiPrefix);
    // The most specific paths the request matches, as OpenAPI resolves them: concrete
    // `/webhooks/deliveries` is not `/webhooks/{id}`, so it does not allow DELETE.
    const matching = table.filter((t) => t.pattern.test(req.path));
    const fewest = Math.min(...matching.map((t) => t.params));
    const declared = new Set(matching.filter((t) => t.params === fewest).flatMap((t) => [...t.methods]));
    if (!declared.size) return next();
    if (declared.has('GET')) declared.add('HEAD');
    if (declared.has(req.method)) return next();
    const allow = [...declared, 'OPTIONS'].join(', ');
    if (req.method === 'OPTIONS') {
      res.set('Allow', allow).status(204).end();
      return;
    }
    throw new AppError('method_not_allowed', `${req.method} is not allowed on this path; allowed: ${allow}`, { Allow: allow });
  };
}
