/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate requests.
 * Each feature describes its operations with `operation(...)` next to the schemas its route
 * parses with (api/operations/<feature>.ts, or the route file itself for a small feature),
 * so the document cannot drift from what the handlers accept; a test walks
 * the Express router and fails when a mounted route has no description here.
 */
import { z } from 'zod';
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  extendZodWithOpenApi,
  type ResponseConfig,
  type RouteConfig,
  type ZodMediaTypeObject,
} from '@asteasolutions/zod-to-openapi';
import { idSchema } from '../../platform/input';
import { MAX_PAGE_SIZE } from '../../platform/lists/pagination';
import { errorCatalog } from '../../platform/errors';
import { ERROR_CODE_HEADER } from './errors';

extendZodWithOpenApi(z);

export const registry = new OpenAPIRegistry();

/** The one error body every 4xx and 5xx carries (api/http/errors.ts). */
const errorSchema = registry.register(
  'Error',
  z.object({ detail: z.string().meta({ description: 'What went wrong, e.g. "title: must not be empty"' }) }),
);

const bearer = registry.registerComponent('securitySchemes', 'bearer', {
  type: 'http',
  scheme: 'bearer',
  description: 'An access token from /auth/login, or an API key (`clk_` followed by 40 letters and digits, from POST /settings/api-keys).',
});

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** A zod schema, or a JSON Schema object where zod cannot say it (event streams). */
type Schema = NonNullable<ZodMediaTypeObject['schema']>;
/** `content` lists several media types of one response (JSON or an event stream). */
type ResponseDoc = string | { description: string; schema?: Schema; contentType?: string; content?: Record<string, Schema> };

export interface OperationDoc {
  /** OpenAPI path under /api/v1, with `{param}` placeholders: `/contracts/{id}`. */
  path: string;
  method: Method;
  summary: string;
  tag: string;
  description?: string;
  /** Defaults to the method and path in camel case: `getContractsById`. */
  operationId?: string;
  /** No bearer credential needed (login, signer links, health). */
  public?: boolean;
  /** Served at the host root rather than under /api/v1 (`/health`). */
  root?: boolean;
  /** Path parameters other than `{id}` (a 24-hex id) and `{token}`; undeclared ones are non-empty strings. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A multipart/form-data body instead of JSON (uploads). */
  multipart?: z.ZodType;
  /** An HTML form's application/x-www-form-urlencoded body (the signing page). */
  form?: z.ZodType;
  /**
   * Responses by status. An error status given as a string is its description: the body is
   * the Error schema. Errors every operation can answer (ERRORS below) are added.
   */
  responses: Record<number, ResponseDoc>;
}

export const timestamp = z.iso.datetime();

const DEFAULT_PARAMS: Record<string, z.ZodType> = {
  id: idSchema,
  token: z.string().min(1).meta({ description: 'The secret token of a signing link (from `signing_url`)' }),
};

const headerOf = (description: string) => ({ description, required: true, schema: { type: 'integer' as const } });

/** X-RateLimit-* on a refusal, and how long to wait. */
const RATE_LIMIT_HEADERS = {
  'Retry-After': headerOf('Seconds until a request may succeed'),
  'X-RateLimit-Limit': headerOf('Requests allowed in the window'),
  'X-RateLimit-Remaining': headerOf('Requests left in the window (0 here)'),
  'X-RateLimit-Reset': headerOf('Unix seconds when the window resets'),
};

/** Login, MFA and reset refusals answer without X-RateLimit-* when a failure counter, not the request limit, refused. */
const RETRY_ONLY = { 'Retry-After': RATE_LIMIT_HEADERS['Retry-After'] };

/** Every error names its kind in a stable code (platform/errors.ts), for clients to branch on instead of the prose. */
const ERROR_CODE_HEADERS = {
  [ERROR_CODE_HEADER]: {
    description: 'A stable code for the kind of error (the `ErrorCode` schema lists each with its status); `detail` is for people',
    required: true,
    schema: { $ref: '#/components/schemas/ErrorCode' },
  },
};

/**
 * Every code with its status and meaning, from the catalog (platform/errors.ts). Built with the
 * document, when every feature's module has defined its codes.
 */
function errorCodeSchema() {
  const codes = [...errorCatalog()].sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b));
  return {
    type: 'string' as const,
    description: "The `X-Error-Code` of an error answer: generic codes, then each feature's own, domain first.",
    oneOf: codes.map(([code, spec]) => ({ const: code, description: `${spec.status}: ${spec.meaning}`, 'x-status': spec.status })),
  };
}

/**
 * The one place an error response is described: every 4xx and 5xx answers the Error body
 * (`{ "detail": ... }`), a 429 with its rate-limit headers.
 */
export function errorResponse(
  status: number,
  description: string,
  headers: ResponseConfig['headers'] = status === 429 ? RATE_LIMIT_HEADERS : undefined,
): ResponseConfig {
  return { description, content: { 'application/json': { schema: errorSchema } }, headers: { ...ERROR_CODE_HEADERS, ...headers } };
}

/** The signer's and the approver's HTML pages (api/routes/signing-page.ts, approval-page.ts): rate-limited, refusals answered as a page, 5xx as JSON. */
const isHtmlPage = (d: OperationDoc) => d.root === true && (d.path.startsWith('/sign/') || d.path.startsWith('/approvals/'));

/** Errors any operation may answer; `when` limits one to the operations it applies to. */
const ERRORS: Array<{ status: number; description: string; when?: (doc: OperationDoc) => boolean }> = [
  { status: 400, description: 'Invalid input; `detail` names the field and the rule' },
  { status: 401, description: 'Missing or invalid credentials', when: (d) => !d.public },
  { status: 403, description: 'The role does not allow this action', when: (d) => !d.public },
  { status: 404, description: "Not found in the caller's organization" },
  { status: 413, description: 'Request body is too large', when: (d) => !!(d.body ?? d.multipart ?? d.form) },
  { status: 415, description: 'Unsupported Content-Encoding or media type of the body', when: (d) => !!(d.body ?? d.multipart ?? d.form) },
  { status: 429, description: 'Rate limit reached; see Retry-After', when: (d) => !d.root || isHtmlPage(d) },
  { status: 503, description: 'A store the operation needs is unavailable; retry shortly' },
];

const content = (schema: Schema, type = 'application/json') => ({ [type]: { schema } });

/**
 * A `text/event-stream` response as OpenAPI 3.1 tools read it: `schema` describes one event,
 * whose `data` line holds the JSON of the named component.
 */
export const eventStream = (component: string, description: string): Schema => ({
  type: 'object',
  description,
  required: ['data'],
  properties: {
    data: { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: `#/components/schemas/${component}` } },
  },
});

/** The list envelope of paged collections: `{ <items>: [...], total, page, page_size }`. */
export function pageOf<K extends string>(key: K, item: z.ZodType) {
  return z.object({
    [key]: z.array(item),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    page_size: z.number().int().min(1).max(MAX_PAGE_SIZE),
  } as Record<K | 'total' | 'page' | 'page_size', z.ZodType>);
}

/** `getContractsById`, `postSignaturesSignByTokenDecline`: stable as long as the path is. */
function defaultOperationId(method: Method, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      return param ? ['by', ...param[1]!.split('_')] : segment.split(/[^A-Za-z0-9]+/);
    });
  return (
    method +
    words
      .filter(Boolean)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('')
  );
}

function pathParams(doc: OperationDoc) {
  const names = [...doc.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const declared = doc.params?.shape ?? {};
  return names.length
    ? z.object(Object.fromEntries(names.map((n) => [n, declared[n] ?? DEFAULT_PARAMS[n] ?? z.string().min(1)])))
    : undefined;
}

const seen = new Set<string>();

/** Describes one operation in the OpenAPI document. */
export function operation(doc: OperationDoc): void {
  const operationId = doc.operationId ?? defaultOperationId(doc.method, doc.path);
  for (const key of [`${doc.method} ${doc.path}`, operationId]) {
    if (seen.has(key)) throw new Error(`OpenAPI: ${key} is described twice`);
    seen.add(key);
  }
  const responses: RouteConfig['responses'] = {};
  for (const [status, r] of Object.entries(doc.responses)) {
    if (typeof r === 'string') {
      responses[status] = Number(status) >= 400 ? errorResponse(Number(status), r) : { description: r };
      continue;
    }
    const media = r.content
      ? Object.fromEntries(Object.entries(r.content).map(([type, schema]) => [type, { schema }]))
      : r.schema
        ? content(r.schema, r.contentType)
        : undefined;
    responses[status] = { description: r.description, ...(media ? { content: media } : {}) };
  }
  const page = isHtmlPage(doc);
  for (const e of ERRORS) {
    if (e.when && !e.when(doc)) continue;
    if (page && e.status < 500) {
      responses[e.status] ??= {
        description: e.description,
        content: content(z.string(), 'text/html'),
        ...(e.status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
      };
      continue;
    }
    // Login, register, reset and MFA answer 429 from failure counters too, without the request limit's headers.
    responses[e.status] ??=
      doc.public && e.status === 429 ? errorResponse(429, e.description, RETRY_ONLY) : errorResponse(e.status, e.description);
  }
  const params = pathParams(doc);
  const body = doc.body
    ? content(doc.body)
    : doc.multipart
      ? content(doc.multipart, 'multipart/form-data')
      : doc.form
        ? content(doc.form, 'application/x-www-form-urlencoded')
        : undefined;
  registry.registerPath({
    method: doc.method,
    path: doc.path,
    operationId,
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
  return registry.definitions.flatMap((d) =>
    d.type === 'route' ? [{ method: d.route.method as Method, path: d.route.path, root: !!d.route.servers }] : [],
  );
}

/** The whole document; built on demand from everything registered at import time. */
export function openApiDocument(serverUrl = '/api/v1') {
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Contract-lifecycle service API',
      version: '1.0.0',
      license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
      description:
        'Contracts, vendors, AI drafting and analysis, documents and cited chat, e-signatures, compliance, analytics, integrations and signed webhooks.',
    },
    servers: [{ url: serverUrl }],
    security: [{ [bearer.name]: [] }],
  });
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ErrorCode: errorCodeSchema() } };
  return doc;
}
