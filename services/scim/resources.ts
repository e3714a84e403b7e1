/** What every SCIM resource answer shares: schemas' names, list responses with paging and filters, meta. */
import { z } from 'zod';
import { matches, parseFilter, type JsonObject } from './filter';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_MAX_PAGE = 200;

/**
 * `startIndex` is 1-based (below 1 means 1); `count` 0 asks only for the total (RFC 7644 §3.4.2.4).
 * Texts are bounded so that a query of multibyte characters, percent-encoded, stays inside
 * Node's 16 KB header limit (past it Node answers 431 before the route).
 */
export const listQuery = z.object({
  filter: z.string().max(512).optional(),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
});

export function listResponse(all: JsonObject[], q: z.infer<typeof listQuery>) {
  const found = q.filter ? all.filter((r) => matches(r, parseFilter(q.filter!))) : all;
  const start = Math.max(1, q.startIndex ?? 1);
  const count = Math.min(SCIM_MAX_PAGE, Math.max(0, q.count ?? SCIM_MAX_PAGE));
  const page = found.slice(start - 1, start - 1 + count);
  return { schemas: [LIST_SCHEMA], totalResults: found.length, startIndex: start, itemsPerPage: page.length, Resources: page };
}

export const meta = (type: 'User' | 'Group', doc: { id: string; get(k: string): unknown }, base: string) => ({
  resourceType: type,
  created: (doc.get('created_at') as Date).toISOString(),
  lastModified: (doc.get('updated_at') as Date).toISOString(),
  location: `${base}/${type}s/${doc.id}`,
});

/** `true`, or the strings Entra sends ("True"/"False"). */
export const scimBoolean = z.union([
  z.boolean(),
  z
    .string()
    .regex(/^(true|false)$/i)
    .transform((v) => v.toLowerCase() === 'true'),
]);

/** `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5) on top-level attributes; id and schemas always stay. */
export const projectionQuery = z.object({
  attributes: z.string().max(256).optional(),
  excludedAttributes: z.string().max(256).optional(),
});

export function project(r: JsonObject, q: z.infer<typeof projectionQuery>): JsonObject {
  const names = (v?: string) =>
    v
      ?.split(',')
      .map((n) =>
        n
          .trim()
          .split('.')[0]!
          .replace(/^urn:.*:/i, '')
          .toLowerCase(),
      )
      .filter(Boolean);
  const only = names(q.attributes);
  const without = names(q.excludedAttributes);
  const keep = (k: string) =>
    ['id', 'schemas'].includes(k) || ((!only || only.includes(k.toLowerCase())) && !without?.includes(k.toLowerCase()));
  return Object.fromEntries(Object.entries(r).filter(([k]) => keep(k)));
}
