/** Multipart uploads streamed to disk and removed again unless kept. */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import type { Engines } from '../../../platform/engines';
import { lackOfRoom } from '../../../platform/disk';
import { AppError, badRequest } from '../../../platform/errors';

export const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** A file part and the most bytes it may have. */
export interface FilePart {
  name: string;
  maxBytes: number;
}

const storedFiles = (req: Request): Express.Multer.File[] =>
  req.file ? [req.file] : Array.isArray(req.files) ? req.files : Object.values(req.files ?? {}).flat();

/**
 * multer writing the named file parts (at most one each) to UPLOAD_DIR under random names, its
 * errors as 400/413. The files are removed when the response ends unless the handler kept them
 * (`res.locals.keepUpload`), so refusals, failures and idempotent replays leave nothing. With
 * `reserveBytes`, a body that would leave less free space on the disk is refused with 507
 * before a byte of it is written (its Content-Length, or every part at its limit).
 */
function receive(s: Engines, parts: readonly FilePart[], single: boolean, reserveBytes?: number): RequestHandler {
  const dir = path.resolve(s.config.UPLOAD_DIR);
  mkdirSync(dir, { recursive: true });
  const largest = Math.max(...parts.map((p) => p.maxBytes));
  const options = multer({
    storage: multer.diskStorage({ destination: dir, filename: (_req, _file, cb) => cb(null, randomUUID()) }),
    limits: { fileSize: largest, files: parts.length, fields: 10, fieldSize: 1024 },
    defParamCharset: 'utf8',
  });
  const upload = single ? options.single(parts[0]!.name) : options.fields(parts.map((p) => ({ name: p.name, maxCount: 1 })));
  const roomFor = async (req: Request) => {
    if (reserveBytes === undefined) return null;
    const declared = Number(req.headers['content-length']);
    const needed = Number.isSafeInteger(declared) && declared > 0 ? declared : parts.reduce((sum, p) => sum + p.maxBytes, 0);
    return await lackOfRoom(dir, reserveBytes, needed);
  };
  return (req, res, next) => {
    roomFor(req).then(
      (lack) =>
        lack
          ? next(new AppError('insufficient_storage', `The upload was not received: ${lack}; try again later`))
          : receiveParts(req, res, next),
      next,
    );
  };

  function receiveParts(...[req, res, next]: Parameters<RequestHandler>) {
    upload(req, res, (err: unknown) => {
      if (!err) {
        res.on('close', () => {
          if (res.locals.keepUpload !== true) for (const f of storedFiles(req)) rm(f.path, { force: true }).catch(() => undefined);
        });
        // multer's limit is the largest part's; each part is held to its own.
        const over = parts.find((p) => storedFiles(req).some((f) => f.fieldname === p.name && f.size > p.maxBytes));
        if (over) return next(new AppError('payload_too_large', `${over.name}: larger than the ${megabytes(over.maxBytes)} limit`));
        return next();
      }
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') {
          const part = parts.find((p) => p.name === err.field) ?? parts[0]!;
          return next(
            new AppError('payload_too_large', `${part.name}: larger than the ${megabytes(largest)} ${single ? 'upload ' : ''}limit`),
          );
        }
        return next(badRequest(`${err.field ?? parts[0]!.name}: ${err.message.toLowerCase()}`));
      }
      next(badRequest(`${parts[0]!.name}: could not read the multipart body (${(err as Error).message})`));
    });
  }
}

/** The single `file` part of an upload (`req.file`), within UPLOAD_MAX_BYTES. */
export const receiveFile = (s: Engines): RequestHandler => receive(s, [{ name: 'file', maxBytes: s.config.UPLOAD_MAX_BYTES }], true);

/** Several named file parts (`req.files[name][0]`), each within its own limit, keeping `reserveBytes` of the disk free when given. */
export const receiveFiles = (s: Engines, parts: readonly FilePart[], options: { reserveBytes?: number } = {}): RequestHandler =>
  receive(s, parts, false, options.reserveBytes);
