/**
 * JSON request bodies, read only after the rate limits counted the request (routes mount
 * this behind theirs), so a flood of bodies costs a refusal, not a decompression.
 * gzip, deflate and br bodies are inflated (BODY_LIMIT applies to the inflated size);
 * a body its Content-Encoding does not describe is the client's error, not a 500. The
 * parsed body then passes middleware/input.ts's checks.
 */
import express, { type RequestHandler } from 'express';
import type { Config } from '../../../platform/config';
import { AppError, badRequest } from '../../../platform/errors';
import { checkJsonBody } from './input';

interface BodyReadError {
  status?: number;
  type?: string;
}

/** What the client sent wrong when body-parser could not read the body; other errors as they are. */
function readError(encodingHeader: string | undefined, err: unknown): unknown {
  const e = err as BodyReadError;
  const encoding = encodingHeader?.trim().toLowerCase() ?? 'identity';
  if (e.type === 'encoding.unsupported') {
    return new AppError(
      'unsupported_media_type',
      `Unsupported Content-Encoding "${encoding.slice(0, 40)}"; send the body as identity, gzip, deflate or br`,
    );
  }
  // body-parser types its own errors; an untyped 400 is the decompression stream failing.
  if (e.status === 400 && e.type === undefined && encoding !== 'identity') {
    return badRequest(`Request body is not valid ${encoding} data (Content-Encoding: ${encoding})`);
  }
  return err;
}

export function jsonBody(config: Pick<Config, 'BODY_LIMIT'>): RequestHandler {
  // Not strict, so a body of `null` or `"abc"` is told it must be an object rather than "not JSON".
  const parse = express.json({ limit: config.BODY_LIMIT, strict: false });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(readError(req.get('content-encoding'), err));
      try {
        checkJsonBody(req, res, next);
      } catch (refused) {
        next(refused);
      }
    });
  };
}
