/**
 * Bulk imports: start one (records file and optional ZIP, streamed to disk), follow its
 * progress, read its rejected rows as CSV, cancel it (services/imports/). The workflow
 * `import-<id>` does the work.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { badRequest } from '../../platform/errors';
import { importView } from '../../models/import';
import { cancelImport } from '../../services/imports/cancel-import';
import { getImport, importListQuery, listImports, openImportErrors } from '../../services/imports/list-imports';
import { importBody, startImport } from '../../services/imports/start-import';
import { authorize, principalOf } from '../http/middleware/auth';
import { receiveFiles } from '../http/middleware/receive-file';
import { sendPage } from '../http/pages';
import '../operations/imports';

export function importsRouter(s: Engines): Router {
  const router = Router();
  const parts = [
    { name: 'records', maxBytes: s.config.IMPORT_RECORDS_MAX_BYTES },
    { name: 'files', maxBytes: s.config.IMPORT_ZIP_MAX_BYTES },
  ];

  const receive = receiveFiles(s, parts, { reserveBytes: s.config.IMPORT_DISK_RESERVE_BYTES });
  router.post('/', authorize('contracts:write'), receive, async (req, res) => {
    const files = (req.files ?? {}) as Record<string, Express.Multer.File[] | undefined>;
    const records = files.records?.[0];
    if (!records) throw badRequest('records: is required (multipart/form-data field "records", a CSV or JSON Lines file)');
    const imported = await startImport(s, principalOf(req), { records, files: files.files?.[0] }, importBody.parse(req.body ?? {}));
    // The workflow reads the files and removes them when the import ends.
    res.locals.keepUpload = true;
    res.status(202).location(`${req.baseUrl}/${imported.id}`).json(importView(imported));
  });

  router.get('/', authorize('contracts:read'), async (req, res) => {
    const q = importListQuery.parse(req.query);
    sendPage(res, 'imports', q, await listImports(s, principalOf(req), q));
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    res.json(importView(await getImport(principalOf(req), req.params.id)));
  });

  router.get('/:id/errors', authorize('contracts:read'), async (req, res) => {
    const errors = await openImportErrors(principalOf(req), req.params.id);
    res.type('text/csv').attachment(`import-${errors.importId}-errors.csv`);
    await errors.write(res);
    res.end();
  });

  router.post('/:id/cancel', authorize('contracts:write'), async (req, res) => {
    res.json(importView(await cancelImport(s, principalOf(req), req.params.id)));
  });

  return router;
}
