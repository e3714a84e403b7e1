/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate requests.
 * Each route file describes its operations with `operation(...)` next to the schemas it
 * parses with, so the document cannot drift from what the handlers accept; a test walks
 * the Express router and fails when a mounted route has no description here.
 */
import { z } from 'zod';
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi, type RouteConfig } from '@asteasolutions/zod-to-openapi';

extendZodWithOpenApi(z);

export const registry = new OpenAPIRegistry();

const problem = registry.register(
  'Problem',
  z.object({ detail: z.string().meta({ description: 'What went wrong, e.g. "title: must not be empty"' }) }),
);

const bearer = registry.registerComponent('securitySchemes', 'bearer', {
  type: 'http',
  scheme: 'bearer',
  description: 'An access token from /auth/login, or an API key (`clm_...`).',
});

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** `content` lists several media types of one response (JSON or an event stream). */
type ResponseDoc = string | { description: string; schema?: z.ZodType; contentType?: string; content?: Record<string, z.ZodType> };

export interface OperationDoc {
  /** OpenAPI path under /api/v1, with `{param}` placeholders: `/contracts/{id}`. */
  path: string;
  method: Method;
  summary: string;
  tag: string;
  description?: string;
  /** No bearer credential needed (login, signer links, health). */
  public?: boolean;
  /** Served at the host root rather than under /api/v1 (`/health`). */
  root?: boolean;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A multipart/form-data body instead of JSON (uploads). */
  multipart?: z.ZodType;
  /** An HTML form's application/x-www-form-urlencoded body (the signing page). */
  form?: z.ZodType;
  /** Success responses by status; error responses ({detail}) are added for every operation. */
  responses: Record<number, ResponseDoc>;
}

const ERRORS: Record<number, string> = {
  400: 'Invalid input; `detail` names the field and the rule',
  401: 'Missing or invalid credentials',
  403: 'The role does not allow this action',
  404: 'Not found in the caller\'s organization',
  429: 'Rate limit reached; see Retry-After',
};

const pathParams = (path: string) => {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  return names.length ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
};

const content = (schema: z.ZodType, type = 'application/json') => ({ [type]: { schema } });

/** Ids and timestamps as every record serializes them. */
export const idSchema = z.string().meta({ description: 'A 24-character hex id', example: '665f1c2ab3e4d5f6a7b8c9d0' });
export const timestamp = z.iso.datetime();

/** The list envelope of paged collections: `{ <items>: [...], total, page, page_size }`. */
export function pageOf<K extends string>(key: K, item: z.ZodType) {
  return z.object({ [key]: z.array(item), total: z.number().int(), page: z.number().int(), page_size: z.number().int() } as Record<K | 'total' | 'page' | 'page_size', z.ZodType>);
}

/** Describes one operation in the OpenAPI document. */
export function operation(doc: OperationDoc): void {
  const responses: RouteConfig['responses'] = {};
  for (const [status, r] of Object.entries(doc.responses)) {
    const d = typeof r === 'string' ? { description: r } : r;
    const media = d.content ? Object.fromEntries(Object.entries(d.content).map(([type, schema]) => [type, { schema }])) : d.schema ? content(d.schema, d.contentType) : undefined;
    responses[status] = { description: d.description, ...(media ? { content: media } : {}) };
  }
  for (const [status, description] of Object.entries(ERRORS)) {
    if (doc.public && status === '401') continue;
    if (doc.public && status === '403') continue;
    responses[status] ??= { description, content: content(problem) };
  }
  const params = pathParams(doc.path);
  const body = doc.body ? content(doc.body) : doc.multipart ? content(doc.multipart, 'multipart/form-data') : doc.form ? content(doc.form, 'application/x-www-form-urlencoded') : undefined;
  registry.registerPath({
    method: doc.method,
    path: doc.path,
    summary: doc.summary,
    tags: [doc.tag],
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.public ? { security: [] } : { security: [{ [bearer.name]: [] }] }),
    ...(doc.root ? { servers: [{ url: '/' }] } : {}),
    request: {
      ...(params ? { params } : {}),
      ...(doc.query ? { query: doc.query } : {}),
      ...(body ? { body: { content: body, required: true } } : {}),
    },
    responses,
  });
}

/** Every registered operation's method and path (under /api/v1 unless `root`). */
export function documentedOperations(): Array<{ method: Method; path: string; root: boolean }> {
  return registry.definitions.flatMap((d) => (d.type === 'route' ? [{ method: d.route.method as Method, path: d.route.path, root: !!d.route.servers }] : []));
}

/** The whole document; built on demand from everything registered at import time. */
export function openApiDocument(serverUrl = '/api/v1') {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Contract-lifecycle service API',
      version: '1.0.0',
      description: 'Contracts, vendors, AI drafting and analysis, documents and cited chat, e-signatures, compliance, analytics, integrations and signed webhooks.',
    },
    servers: [{ url: serverUrl }],
    security: [{ [bearer.name]: [] }],
  });
}
