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

declare const registered: unique symbol;
/** A code a feature registered with `defineErrors` (only it makes one). */
export type DomainCode = string & { readonly [registered]: true };

/** A feature's error maker: `signatureErrors.signer_not_next(detail)`, and its code for `isAppError`. */
export type DomainError<K extends string = string> = ((detail: string, headers?: Record<string, string>) => AppError) & {
  readonly code: K;
};

type DomainErrors<T> = { readonly [K in keyof T & string]: DomainError<K> };

/**
 * A feature's own codes, domain first (`signer_not_next`, `contract_has_pending_signature`),
 * each with its status and meaning; the result makes each error:
 * `throw signatureErrors.signer_not_next('Another signer signs first')`.
 */
export function defineErrors<const T extends Record<string, ErrorCodeSpec>>(codes: T): DomainErrors<T> {
  const made: Record<string, DomainError> = {};
  for (const [code, spec] of Object.entries(codes)) {
    const known = catalog.get(code);
    if (known && (known.status !== spec.status || known.meaning !== spec.meaning)) throw new Error(`error code ${code} is defined twice`);
    catalog.set(code, spec);
    const registeredCode = code as DomainCode;
    made[code] = Object.assign((detail: string, headers?: Record<string, string>) => new AppError(registeredCode, detail, headers), {
      code,
    });
  }
  return made as DomainErrors<T>;
}

/** A refusal with its code; the catalog gives the status, so a code always answers with the same one. */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(
    code: ErrorCode | DomainCode,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.code = code;
    this.status = catalog.get(code)?.status ?? 500;
  }
}

/**
 * Whether `err` is a refusal, and of that code: a generic code by name, a feature's by its maker
 * (`isAppError(err, searchErrors.search_unavailable)`), so a misspelt code does not compile.
 */
export function isAppError(err: unknown, code?: ErrorCode | DomainError): err is AppError {
  return err instanceof AppError && (code === undefined || err.code === (typeof code === 'string' ? code : code.code));
}

/** The `Retry-After` header of a refusal that lifts in `ms` (whole seconds, at least 1). */
export const retryAfter = (ms: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) });

/** The generic codes that answer 400. */
type BadRequestCode = { [K in ErrorCode]: (typeof GENERIC_CODES)[K]['status'] extends 400 ? K : never }[ErrorCode];

export const badRequest = (detail: string, code: BadRequestCode = 'invalid_request') => new AppError(code, detail);
export const unauthorized = (detail = 'Missing or invalid credentials') =>
  new AppError('unauthenticated', detail, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail = 'Your role does not allow this action') => new AppError('forbidden', detail);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const unavailable = (detail: string) => new AppError('unavailable', detail);
