/**
 * Every failure a client may see: a status, the `detail` the body carries, and a stable code
 * per kind of error. The API puts the code in the `X-Error-Code` header and its request log
 * (api/http/errors.ts), so clients and operators branch on the code, never on the prose.
 * Features throw these; the HTTP layer renders them.
 */

/** What a code means to a client, and the status it always answers with. */
export interface ErrorCodeSpec {
  readonly status: number;
  readonly meaning: string;
}

/** The codes any feature may answer with: input, access, routing, capacity and outages. */
const GENERIC_CODES = {
  invalid_request: { status: 400, meaning: 'The request is invalid; `detail` says why' },
  validation_failed: { status: 400, meaning: 'A field breaks a rule; `detail` names the field and the rule' },
  malformed_json: { status: 400, meaning: 'The body is not valid JSON' },
  malformed_path: { status: 400, meaning: 'The path is not valid percent-encoded UTF-8' },
  unauthenticated: { status: 401, meaning: 'Missing or invalid credentials' },
  forbidden: { status: 403, meaning: 'The role does not allow this action' },
  not_found: { status: 404, meaning: "No such record in the caller's organization" },
  no_route: { status: 404, meaning: 'No such path' },
  method_not_allowed: { status: 405, meaning: 'The path does not take this method' },
  conflict: { status: 409, meaning: "The record's state does not allow this now" },
  gone: { status: 410, meaning: 'The record or link no longer exists' },
  payload_too_large: { status: 413, meaning: 'The body or file is over a limit' },
  unsupported_media_type: { status: 415, meaning: "The body's type or encoding is not accepted" },
  rate_limited: { status: 429, meaning: 'Too many requests; wait `Retry-After` seconds' },
  internal_error: { status: 500, meaning: 'A fault of the service; it is logged' },
  unavailable: { status: 503, meaning: 'An engine is unavailable; try again shortly' },
  insufficient_storage: { status: 507, meaning: 'The disk lacks room to take this in; try again later' },
  store_unavailable: { status: 503, meaning: 'The database is unavailable; try again shortly' },
  store_busy: { status: 503, meaning: 'The database is busy; retry after `Retry-After`' },
} as const satisfies Record<string, ErrorCodeSpec>;
export type ErrorCode = keyof typeof GENERIC_CODES;

/**
 * Every code a client may see, generic and domain: features add theirs with `defineErrors`,
 * and OpenAPI lists them all. Stable: clients branch on them.
 */
const catalog = new Map<string, ErrorCodeSpec>(Object.entries(GENERIC_CODES));

/** Every code and what it means, once the features' modules are loaded. */
export const errorCatalog = (): ReadonlyMap<string, ErrorCodeSpec> => catalog;

type DomainErrors<T> = { readonly [K in keyof T]: (detail: string, headers?: Record<string, string>) => AppError };

/**
 * A feature's own codes, domain first (`signer_not_next`, `contract_has_pending_signature`),
 * each with its status and meaning; the result makes each error:
 * `throw signatureErrors.signer_not_next('Another signer signs first')`.
 */
export function defineErrors<const T extends Record<string, ErrorCodeSpec>>(codes: T): DomainErrors<T> {
  const made: Record<string, (detail: string, headers?: Record<string, string>) => AppError> = {};
  for (const [code, spec] of Object.entries(codes)) {
    const known = catalog.get(code);
    if (known && (known.status !== spec.status || known.meaning !== spec.meaning)) throw new Error(`error code ${code} is defined twice`);
    catalog.set(code, spec);
    made[code] = (detail, headers = {}) => new AppError(spec.status, detail, headers, code);
  }
  return made as DomainErrors<T>;
}

/** The code of an error made from its status alone. */
const GENERIC: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
  507: 'insufficient_storage',
};

export class AppError extends Error {
  readonly code: string;

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    code?: string,
  ) {
    super(detail);
    this.code = code ?? GENERIC[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
  }
}

/** The `Retry-After` header of a refusal that lifts in `ms` (whole seconds, at least 1). */
export const retryAfter = (ms: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) });

export const badRequest = (detail: string, code: ErrorCode = 'invalid_request') => new AppError(400, detail, {}, code);
export const unauthorized = (detail = 'Missing or invalid credentials') => new AppError(401, detail, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail = 'Your role does not allow this action') => new AppError(403, detail);
export const notFound = (what: string) => new AppError(404, `${what} not found`);
export const conflict = (detail: string) => new AppError(409, detail);
export const gone = (detail: string) => new AppError(410, detail);
export const unavailable = (detail: string) => new AppError(503, detail);
