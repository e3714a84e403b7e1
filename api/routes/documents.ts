/**
 * Documents: upload (streamed to disk, checked by content), list, get, AI analysis and
 * delete (services/documents/). An upload answers 201 `processing` at once; the ingestion
 * workflow `ingest-<id>` makes it `ready` (searchable by the chat) or `failed`.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { badRequest } from '../../platform/errors';
import { analyzeDocument } from '../../services/documents/analyze-document';
import { deleteDocument } from '../../services/documents/delete-document';
import { getDocument, listDocuments, listQuery } from '../../services/documents/list-documents';
import { uploadBody, uploadDocument } from '../../services/documents/upload-document';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { receiveFile } from '../http/middleware/receive-file';
import { sendPage } from '../http/pages';
import '../operations/documents';

export function documentsRouter(s: Engines): Router {
  const router = Router();

  router.post('/upload', authorize('documents:write'), receiveFile(s), idempotent(s.logger), async (req, res) => {
    if (!req.file) throw badRequest('file: is required (multipart/form-data field "file")');
    const doc = await uploadDocument(s, principalOf(req), req.file, uploadBody.parse(req.body ?? {}));
    res.locals.keepUpload = true;
    res.status(201).json(doc.toJSON());
  });

  router.get('/', authorize('documents:read'), async (req, res) => {
    const q = listQuery.parse(req.query);
    sendPage(res, 'documents', q, await listDocuments(s, principalOf(req), q));
  });

  router.get('/:id', authorize('documents:read'), async (req, res) => {
    res.json((await getDocument(principalOf(req), req.params.id)).toJSON());
  });

  // Reading a file costs what an upload costs, so it needs the upload's permission; the
  // file is parsed by a child process within the extraction limits, never in the API.
  router.post('/:id/analyze', authorize('documents:write'), async (req, res) => {
    res.json(await analyzeDocument(s, principalOf(req), req.params.id));
  });

  router.delete('/:id', authorize('documents:delete'), async (req, res) => {
    await deleteDocument(s, principalOf(req), req.params.id);
    res.status(204).end();
  });

  return router;
}
