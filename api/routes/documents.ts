/**
 * Documents: upload (streamed to disk, checked by content), list, get, AI analysis and
 * delete. An upload answers 201 `processing` at once; the ingestion workflow
 * `ingest-<id>` makes it `ready` (searchable by the chat) or `failed`.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { detectFileType, ExtractionLimitError, UnreadableDocumentError, type SupportedMime } from '../../services/documents/extraction';
import { fullText, type Page } from '../../services/documents/chunking';
import { extractTextInChild } from '../../services/documents/extract-text-in-child';
import { deleteSource, isVectorStoreDown } from '../../services/search/vector-store';
import { pageQuery } from '../../platform/lists/pagination';
import { listPage } from '../../platform/lists/list-index';
import { ID_PATTERN, inOrg } from '../../models/base';
import { Contract } from '../../models/contract';
import { Document, DocumentChunkBatch, documentList, DOCUMENT_CATEGORIES, DOCUMENT_STATUSES } from '../../models/document';
import { startWorkflow } from '../../platform/temporal/client';
import { documentIngestion } from '../../workflows/document-ingestion.shared';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { AppError, badRequest, notFound, unavailable } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { DocumentAnalysis } from '../../platform/ai/port';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { idSchema, objectId } from '../../platform/input';

// An unknown or malformed contract id in an upload is 404 (the contract is not found), as in a path.
const uploadBody = z.object({
  category: z.enum(DOCUMENT_CATEGORIES),
  contract_id: z.string().max(100).meta({ pattern: ID_PATTERN.source, description: 'A contract of the organization; any other value answers 404' }).optional(),
});
const listQuery = pageQuery.extend({
  category: z.enum(DOCUMENT_CATEGORIES).optional(),
  status: z.enum(DOCUMENT_STATUSES).optional(),
  contract_id: objectId('must be a contract id').optional(),
});

/** A document's toJSON (models/document.ts; the storage path is hidden). */
const documentSchema = registry.register('Document', z.object({
  id: idSchema,
  organization_id: idSchema,
  filename: z.string(),
  size_bytes: z.number().int(),
  mime_type: z.string(),
  category: z.enum(DOCUMENT_CATEGORIES),
  status: z.enum(DOCUMENT_STATUSES),
  error: z.string().nullable().meta({ description: 'Why ingestion failed' }),
  chunk_count: z.number().int(),
  page_count: z.number().int().nullable(),
  workflow_id: z.string().nullable(),
  contract_id: idSchema.nullable().meta({ description: 'The contract the document belongs to' }),
  uploaded_by: z.string(),
  processed_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
}));

const tag = 'Documents';
const one = { description: 'The document', schema: documentSchema };
operation({
  path: '/documents/upload', method: 'post', tag, summary: 'Upload a PDF, DOCX or UTF-8 text file; answers `processing` at once and ingests it in the background (honours Idempotency-Key)',
  multipart: uploadBody.extend({ file: z.string().meta({ format: 'binary', description: 'The file; its type is checked by content' }) }),
  responses: { 201: one, 413: 'Larger than the upload limit', 503: 'The workflow engine is unavailable; nothing was kept' },
});
operation({ path: '/documents', method: 'get', tag, summary: 'List documents (newest first), by category, status or contract', query: listQuery, responses: { 200: { description: 'A page of documents', schema: pageOf('documents', documentSchema) } } });
operation({ path: '/documents/{id}', method: 'get', tag, summary: 'Get a document and its ingestion state', responses: { 200: one } });
operation({
  path: '/documents/{id}/analyze', method: 'post', tag, summary: 'AI analysis of the document\'s text (the permission of an upload: it reads the file again)',
  responses: { 200: { description: 'The analysis', schema: DocumentAnalysis }, 400: 'The file has no readable text', 422: 'The file is over a reading limit (what it inflates to, its text, pages, memory or time)', 503: 'The AI provider is unavailable' },
});
operation({ path: '/documents/{id}', method: 'delete', tag, summary: 'Delete a document, its vectors and its file', responses: { 204: 'Deleted', 503: 'The vector store is unavailable; nothing was deleted' } });

/** The client's name reduced to a plain file name: no directories, control or reserved characters. */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}<>:"|?*]/gu, '')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  return clean || 'upload';
}

/** Text an analysis reads (as much as the Gemini adapter sends the model). */
const ANALYSIS_CHARS = 100_000;

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * multer writing the single `file` part to UPLOAD_DIR under a random name, its errors as
 * 400/413. The file is removed when the response ends unless the handler kept it
 * (`res.locals.keepUpload`), so refusals, failures and idempotent replays leave nothing.
 */
function receiveFile(s: Services): RequestHandler {
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
        if (err.code === 'LIMIT_FILE_SIZE') return next(new AppError(413, `file: larger than the ${megabytes(s.config.UPLOAD_MAX_BYTES)} upload limit`));
        return next(badRequest(`${err.field ?? 'file'}: ${err.message.toLowerCase()}`));
      }
      next(badRequest(`file: could not read the multipart body (${(err as Error).message})`));
    });
  };
}

export function documentsRouter(s: Services): Router {
  const router = Router();

  router.post('/documents/upload', authorize('documents:write'), receiveFile(s), idempotent(s.logger), async (req, res) => {
    const p = principalOf(req);
    const file = req.file;
    if (!file) throw badRequest('file: is required (multipart/form-data field "file")');
    const { category, contract_id } = uploadBody.parse(req.body ?? {});
    const owner = contract_id === undefined ? null : inOrg(p.organizationId, contract_id);
    if (contract_id !== undefined && !(owner && (await Contract.exists(owner)))) throw notFound('Contract');
    if (file.size === 0) throw badRequest('file: is empty');
    const mime = await detectFileType(file.path);
    if (!mime) throw badRequest('file: content is not a PDF, DOCX or UTF-8 text file');

    const doc = await Document.create({
      organization_id: p.organizationId,
      filename: sanitizeFilename(file.originalname),
      size_bytes: file.size,
      mime_type: mime,
      category,
      status: 'processing',
      uploaded_by: p.userId,
      storage_path: file.path,
      contract_id: contract_id ?? null,
    });
    const documentId = doc.id;
    doc.workflow_id = `ingest-${documentId}`;
    await doc.save();
    try {
      await startWorkflow(s, documentIngestion, { workflowId: doc.workflow_id, args: [{ documentId }], organizationId: p.organizationId, recordId: documentId });
    } catch (err) {
      await Document.deleteOne({ _id: doc._id });
      s.logger.error({ err, documentId }, 'could not start document ingestion');
      throw unavailable('The workflow engine is unavailable; the upload was not kept, try again shortly');
    }
    res.locals.keepUpload = true;
    res.status(201).json(doc.toJSON());
  });

  router.get('/documents', authorize('documents:read'), async (req, res) => {
    const q = listQuery.parse(req.query);
    const equal = Object.fromEntries((['category', 'status', 'contract_id'] as const).filter((f) => q[f]).map((f) => [f, q[f]]));
    const { items, total } = await listPage(s, documentList, principalOf(req).organizationId, { equal }, q);
    res.json({ documents: items, total, page: q.page, page_size: q.page_size });
  });

  router.get('/documents/:id', authorize('documents:read'), async (req, res) => {
    res.json((await findOwned(Document, principalOf(req), req.params.id, 'Document')).toJSON());
  });

  // Reading a file costs what an upload costs, so it needs the upload's permission; the
  // file is parsed by a child process within the extraction limits, never in the API.
  router.post('/documents/:id/analyze', authorize('documents:write'), async (req, res) => {
    const doc = await findOwned(Document, principalOf(req), req.params.id, 'Document');
    const pages: Page[] = [];
    let kept = 0;
    try {
      for await (const { page, text } of extractTextInChild(doc.storage_path, doc.mime_type as SupportedMime, s.config)) {
        // Every page is counted; the analysis reads the first ANALYSIS_CHARS of text.
        const part = text.slice(0, Math.max(0, ANALYSIS_CHARS - kept));
        kept += part.length;
        const last = pages.at(-1);
        if (last?.page === page) last.text += part;
        else pages.push({ page, text: part });
      }
    } catch (err) {
      if (err instanceof UnreadableDocumentError) throw badRequest(`document: ${err.message}`);
      if (err instanceof ExtractionLimitError) throw new AppError(422, `document: ${err.message}`);
      throw err;
    }
    res.json(await s.ai.analyzeDocument({ filename: doc.filename, text: fullText(pages), pageCount: pages.length }));
  });

  router.delete('/documents/:id', authorize('documents:delete'), async (req, res) => {
    const p = principalOf(req);
    const doc = await findOwned(Document, p, req.params.id, 'Document');
    const documentId = doc.id;
    if (doc.status === 'processing' && doc.workflow_id) {
      // Stop writing vectors before removing them.
      await s.temporal.workflow.getHandle(doc.workflow_id).terminate('document deleted').catch(() => undefined);
    }
    try {
      await deleteSource(s, p.organizationId, documentId);
    } catch (err) {
      if (isVectorStoreDown(err)) throw unavailable('The vector store is unavailable; the document was not deleted, try again shortly');
      throw err;
    }
    await Promise.all([
      Document.deleteOne({ _id: doc._id }),
      DocumentChunkBatch.deleteMany({ document_id: new Types.ObjectId(documentId) }),
      rm(doc.storage_path, { force: true }),
    ]);
    res.status(204).end();
  });

  return router;
}
