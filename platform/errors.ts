/**
 * Every failure a client may see: a status, the `detail` the body carries, and a stable code
 * per kind of error. The API puts the code in the `X-Error-Code` header and its request log
 * (api/http/errors.ts), so clients and operators branch on the code, never on the prose.
 * Features throw these; the HTTP layer renders them.
 */

/** The codes, one per kind of error. Stable: clients depend on them (documented in OpenAPI). */
export const ERROR_CODES = {
  invalid_request: 400,
  validation_failed: 400,
  malformed_json: 400,
  malformed_path: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  no_route: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
  store_unavailable: 503,
  store_busy: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

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
};

export class AppError extends Error {
  readonly code: ErrorCode;

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    code?: ErrorCode,
  ) {
    super(detail);
    this.code = code ?? GENERIC[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
  }
}

export const badRequest = (detail: string, code: ErrorCode = 'invalid_request') => new AppError(400, detail, {}, code);
export const unauthorized = (detail = 'Missing or invalid credentials') => new AppError(401, detail, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail = 'Your role does not allow this action') => new AppError(403, detail);
export const notFound = (what: string) => new AppError(404, `${what} not found`);
export const conflict = (detail: string) => new AppError(409, detail);
export const gone = (detail: string) => new AppError(410, detail);
export const unavailable = (detail: string) => new AppError(503, detail);
