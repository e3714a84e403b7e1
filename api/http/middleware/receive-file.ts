/** The multipart upload of one file, streamed to disk and removed again unless kept. */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import multer from 'multer';
import type { Services } from '../../../platform/services';
import { AppError, badRequest } from '../../../platform/errors';

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * multer writing the single `file` part to UPLOAD_DIR under a random name, its errors as
 * 400/413. The file is removed when the response ends unless the handler kept it
 * (`res.locals.keepUpload`), so refusals, failures and idempotent replays leave nothing.
 */
export function receiveFile(s: Services): RequestHandler {
  const dir = path.resolve(s.config.UPLOAD_DIR);
  mkdirSync(dir, { recursive: true });
  const upload = multer({
    storage: multer.diskStorage({ destination: dir, filename: (_req, _file, cb) => cb(null, randomUUID()) }),
    limits: { fileSize: s.config.UPLOAD_MAX_BYTES, files: 1, fields: 10, fieldSize: 1024 },
    defParamCharset: 'utf8',
  }).single('file');
  return (req, res, next) => {
    upload(req, res, (err: unknown) => {
      if (!err) {
        res.on('close', () => {
          if (req.file && res.locals.keepUpload !== true) rm(req.file.path, { force: true }).catch(() => undefined);
        });
        return next();
      }
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE')
          return next(new AppError(413, `file: larger than the ${megabytes(s.config.UPLOAD_MAX_BYTES)} upload limit`));
        return next(badRequest(`${err.field ?? 'file'}: ${err.message.toLowerCase()}`));
      }
      next(badRequest(`file: could not read the multipart body (${(err as Error).message})`));
    });
  };
}
