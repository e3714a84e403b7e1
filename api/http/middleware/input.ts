/**
 * Input the handlers' zod schemas cannot be trusted to see: checked once for every route,
 * so no bad value reaches a store or a recursive helper and answers 500.
 *
 * - A JSON body is an object (every operation's body is), not `null`, a string or an array.
 * - No string or key in a body or query holds a NUL character: PostgreSQL (FerretDB's
 *   backend) and Elasticsearch refuse it, which surfaced as 500s from deep inside a write.
 * - A body nests at most MAX_DEPTH levels: canonical JSON (idempotency fingerprints) and
 *   other helpers recurse, and a 1 MB body of brackets overflowed their stack.
 */
import type { RequestHandler } from 'express';
import { JSON_OBJECT_EXPECTED } from '../errors';
import { badRequest } from '../../../platform/errors';

const MAX_DEPTH = 32;

/** Where a body value sits, as `describeZodError` writes it: `signers.0.name`. */
const at = (path: readonly (string | number)[]) => path.join('.');

/** The first problem in a parsed JSON value, walked without recursion (the value may be deep). */
function bodyProblem(body: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: (string | number)[] }> = [{ value: body, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      if (value.includes('\0')) return `${at(path) || 'body'}: must not contain a NUL character`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_DEPTH) return `Request body is nested more than ${MAX_DEPTH} levels deep`;
    const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      if (typeof key === 'string' && key.includes('\0')) return `${at(path) || 'body'}: a key must not contain a NUL character`;
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

/** After express.json: refuses bodies that are not JSON objects, that hold NUL characters or nest too deeply. */
export const checkJsonBody: RequestHandler = (req, _res, next) => {
  // express.json leaves req.body undefined when the request had no JSON body.
  const body: unknown = req.body;
  if (body === undefined) return next();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest(JSON_OBJECT_EXPECTED);
  const problem = bodyProblem(body);
  if (problem) throw badRequest(problem);
  next();
};

/** Query values are strings (the "simple" parser); a NUL in any of them, or in a name, is refused. */
export const checkQuery: RequestHandler = (req, _res, next) => {
  for (const [name, value] of Object.entries(req.query)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (name.includes('\0') || values.some((v) => typeof v === 'string' && v.includes('\0'))) {
      throw badRequest(`${name.replaceAll('\0', '\\0')}: must not contain a NUL character`);
    }
  }
  next();
};
