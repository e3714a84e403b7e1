/**
 * `Idempotency-Key` on creating POSTs (api-decisions, General): the first response is
 * kept 24 h per principal and key and replayed for a repeat (with `Idempotent-Replayed:
 * true`); the same key with a different request, or while the first is still running,
 * is 409. Mount after `authorize`, so refused requests never claim a key.
 * A route whose answer carries secrets (signing links) passes a `ReplayCodec`: the stored
 * answer leaves them out and a replay puts them back from what the service can re-derive.
 */
import type { Request, RequestHandler, Response } from 'express';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { canonicalJson } from '../../../platform/security/canonical-json';
import type { Logger } from '../../../platform/logger';
import { claimIdempotencyKey, keepIdempotentAnswer, releaseIdempotencyKey } from '../../../services/idempotency/idempotency-keys';
import { principalOf } from './auth';
import { idempotencyErrors } from '../../../services/idempotency/errors';
import { ERROR_CODE_HEADER, errorCodeOf } from '../errors';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * What makes two requests "the same": method, URL, body and, for an upload (multer ran
 * first), the file's name and bytes, so another file under the same key is a conflict.
 */
async function fingerprintOf(req: Request): Promise<string> {
  const hash = createHash('sha256').update(`${req.method} ${req.originalUrl}\n${canonicalJson(req.body ?? null)}`);
  if (req.file) {
    hash.update(`\n${req.file.fieldname} ${req.file.originalname} ${req.file.size}\n`);
    for await (const chunk of createReadStream(req.file.path)) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** How a route's answer is kept for replay when it must not be stored as sent. */
export interface ReplayCodec {
  /** What to store instead of the answer (secrets removed). */
  stored(body: unknown): unknown;
  /** The answer to replay, rebuilt from what was stored. */
  replayed(stored: unknown, req: Request): Promise<unknown>;
}

export function idempotent(logger: Logger, codec?: ReplayCodec): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('Idempotency-Key');
    if (key === undefined) return next();
    if (!KEY.test(key)) throw idempotencyErrors.idempotency_key_invalid('Idempotency-Key: must be 1 to 255 visible ASCII characters');
    const p = principalOf(req);
    const scope = `${p.kind}:${p.id}`;
    const fingerprint = await fingerprintOf(req);

    const existing = await claimIdempotencyKey(scope, key, fingerprint);
    if (existing) {
      if (existing.fingerprint !== fingerprint)
        throw idempotencyErrors.idempotency_key_reused('Idempotency-Key: already used for a different request');
      if (existing.state === 'in_flight')
        throw idempotencyErrors.idempotency_key_in_flight('Idempotency-Key: a request with this key is still in progress');
      const body: unknown = codec ? await codec.replayed(existing.body, req) : existing.body;
      if (existing.error_code) res.set(ERROR_CODE_HEADER, existing.error_code);
      res
        .set('Idempotent-Replayed', 'true')
        .status(existing.status ?? 200)
        .json(body);
      return;
    }

    const release = () => releaseIdempotencyKey(scope, key);
    let answered = false;
    const send = res.json.bind(res);
    // The answer is stored before it is sent, so a repeat that arrives right after it replays.
    res.json = ((body: unknown) => {
      answered = true;
      // A server fault is not an answer to keep: the key is freed so the client can retry.
      const store =
        res.statusCode >= 500
          ? release()
          : keepIdempotentAnswer(scope, key, {
              status: res.statusCode,
              body: codec ? codec.stored(body) : body,
              error_code: errorCodeOf(res),
            });
      store.then(
        () => send(body),
        (err: unknown) => {
          logger.error({ err, key }, 'could not store the idempotent response');
          send(body);
        },
      );
      return res;
    }) as Response['json'];
    // A response not sent as JSON, or a dropped connection, leaves nothing to replay.
    res.on('close', () => {
      if (!answered) release().catch((err: unknown) => logger.warn({ err, key }, 'could not release an idempotency key'));
    });
    next();
  };
}
