/**
 * Documents: upload (streamed to disk, checked by content), list, get, AI analysis and
 * delete (services/documents/). An upload answers 201 `processing` at once; the ingestion
 * workflow `ingest-<id>` makes it `ready` (searchable by the chat) or `failed`.
 */
import { Router, type Request } from 'express';
import type { Engines } from '../../platform/engines';
import { badRequest } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { listPage } from '../../platform/lists/list-index';
import { Document, documentList } from '../../models/document';
import { analyzeDocument } from '../../services/documents/analyze-document';
import { deleteDocument } from '../../services/documents/delete-document';
import { uploadBody, uploadDocument } from '../../services/documents/upload-document';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { receiveFile } from '../http/middleware/receive-file';
import { listQuery } from '../operations/documents';

export function documentsRouter(s: Engines): Router {
  const router = Router();
  const owned = (req: Request) => findOwned(Document, principalOf(req), req.params.id, 'Document');

  router.post('/upload', authorize('documents:write'), receiveFile(s), idempotent(s.logger), async (req, res) => {
    if (!req.file) throw badRequest('file: is required (multipart/form-data field "file")');
    const doc = await uploadDocument(s, principalOf(req), req.file, uploadBody.parse(req.body ?? {}));
    res.locals.keepUpload = true;
    res.status(201).json(doc.toJSON());
  });

  router.get('/', authorize('documents:read'), async (req, res) => {
    const q = listQuery.parse(req.query);
    const equal = Object.fromEntries((['category', 'status', 'contract_id'] as const).filter((f) => q[f]).map((f) => [f, q[f]]));
    const { items, total } = await listPage(s, documentList, principalOf(req).organizationId, { equal }, q);
    res.json({ documents: items, total, page: q.page, page_size: q.page_size });
  });

  router.get('/:id', authorize('documents:read'), async (req, res) => {
    res.json((await owned(req)).toJSON());
  });

  // Reading a file costs what an upload costs, so it needs the upload's permission; the
  // file is parsed by a child process within the extraction limits, never in the API.
  router.post('/:id/analyze', authorize('documents:write'), async (req, res) => {
    res.json(await analyzeDocument(s, await owned(req)));
  });

  router.delete('/:id', authorize('documents:delete'), async (req, res) => {
    await deleteDocument(s, principalOf(req).organizationId, await owned(req));
    res.status(204).end();
  });

  return router;
}
