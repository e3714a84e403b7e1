/**
 * One middleware that turns any thrown value into `{ "detail": ... }` with the right status
 * and its stable code (platform/errors.ts) in `X-Error-Code`. Internals never leak.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import mongoose from 'mongoose';
import { redactUrl, type Logger } from '../../platform/logger';
import { AppError, badRequest, isAppError } from '../../platform/errors';

/** The response header that carries the error's code; the request log line carries it as `error_code`. */
export const ERROR_CODE_HEADER = 'X-Error-Code';

/** The code an answer carries, if it is an error. */
export function errorCodeOf(res: Pick<ServerResponse, 'getHeader'>): string | null {
  const code = res.getHeader(ERROR_CODE_HEADER);
  return typeof code === 'string' ? code : null;
}

export const JSON_OBJECT_EXPECTED = 'Request body must be a JSON object';

/** "field `x`: rule" for the first problem zod found. */
export function describeZodError(err: ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'Invalid input';
  // Only a body is parsed as a whole object: a missing one fails at the root.
  if (issue.path.length === 0 && issue.code === 'invalid_type' && issue.expected === 'object') return JSON_OBJECT_EXPECTED;
  const path = issue.path.join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** The store being unreachable is an outage (503), not a bug (500). */
function isStoreUnavailable(err: unknown): boolean {
  return (
    err instanceof mongoose.mongo.MongoServerSelectionError ||
    err instanceof mongoose.mongo.MongoNetworkError ||
    err instanceof mongoose.mongo.MongoNotConnectedError ||
    (err instanceof Error && err.name === 'MongooseServerSelectionError')
  );
}

/** FerretDB on SQLite refuses a write it could not lock in time: transient, worth a retry. */
const isStoreBusy = (err: unknown) => err instanceof mongoose.mongo.MongoServerError && /SQLITE_BUSY|database is locked/.test(err.message);

interface BodyParserError {
  type?: string;
  status?: number;
}

export function toAppError(err: unknown): AppError | undefined {
  if (isAppError(err)) return err;
  if (err instanceof ZodError) return badRequest(describeZodError(err), 'validation_failed');
  const type = (err as BodyParserError | null)?.type;
  if (type === 'entity.parse.failed') return badRequest('Request body is not valid JSON', 'malformed_json');
  // The router could not percent-decode a path segment (`/contracts/%E0%A4%A`).
  if (err instanceof URIError) return badRequest('The request path is not valid percent-encoded UTF-8', 'malformed_path');
  if (type === 'entity.too.large') return new AppError('payload_too_large', 'Request body is too large');
  // A form with more fields than its parser allows (the signing page's, 10).
  if (type === 'parameters.too.many') return new AppError('payload_too_large', 'The form has too many fields');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return new AppError('unsupported_media_type', 'Unsupported request encoding');
  if (isStoreUnavailable(err)) return new AppError('store_unavailable', 'The database is unavailable; try again shortly');
  if (isStoreBusy(err))
    return new AppError('store_busy', 'The database is busy; retry shortly (with the same Idempotency-Key for creates)', {
      'Retry-After': '1',
    });
  return undefined;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const known = toAppError(err);
    const appErr = known ?? new AppError('internal_error', 'Internal server error');
    if (!known || appErr.status >= 500)
      logger.error({ err, reqId: req.id, path: redactUrl(req.path), error_code: appErr.code }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    res.set(appErr.headers).set(ERROR_CODE_HEADER, appErr.code).status(appErr.status).json({ detail: appErr.detail });
  };
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(new AppError('no_route', `No route for ${req.method} ${req.path}`));
};
