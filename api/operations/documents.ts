/** The OpenAPI description of the document operations (api/routes/documents.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { DocumentAnalysis } from '../../platform/ai/port';
import { DOCUMENT_CATEGORIES, DOCUMENT_STATUSES } from '../../models/document';
import { listQuery } from '../../services/documents/list-documents';
import { uploadBody } from '../../services/documents/upload-document';
import { operation, pageOf, registry, timestamp } from '../http/openapi';

/** A document's toJSON (models/document.ts; the storage path is hidden). */
const documentSchema = registry.register(
  'Document',
  z.object({
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
    progress: z
      .object({
        chunks_done: z.number().int().meta({ description: 'Chunks embedded and indexed so far' }),
        chunks_total: z.number().int().nullable().meta({ description: "The document's chunks; null until extraction has counted them" }),
      })
      .meta({
        description:
          'How far ingestion has come while `processing` (GET /documents/{id} reads it as it moves; lists may show an earlier value). A ready document shows every chunk done.',
      }),
    uploaded_by: z.string(),
    processed_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

const tag = 'Documents';
const one = { description: 'The document', schema: documentSchema };
operation({
  path: '/documents/upload',
  method: 'post',
  tag,
  summary: 'Upload a PDF, DOCX or UTF-8 text file; answers `processing` at once and ingests it in the background (honours Idempotency-Key)',
  multipart: uploadBody.extend({ file: z.string().meta({ format: 'binary', description: 'The file; its type is checked by content' }) }),
  responses: { 201: one, 413: 'Larger than the upload limit', 503: 'The workflow engine is unavailable; nothing was kept' },
});
operation({
  path: '/documents',
  method: 'get',
  tag,
  summary: 'List documents (newest first), by category, status or contract',
  query: listQuery,
  responses: { 200: { description: 'A page of documents', schema: pageOf('documents', documentSchema) } },
});
operation({ path: '/documents/{id}', method: 'get', tag, summary: 'Get a document and its ingestion state', responses: { 200: one } });
operation({
  path: '/documents/{id}/analyze',
  method: 'post',
  tag,
  summary: "AI analysis of the document's text (the permission of an upload: it reads the file again)",
  responses: {
    200: { description: 'The analysis', schema: DocumentAnalysis },
    400: 'The file has no readable text',
    422: 'The file is over a reading limit (what it inflates to, its text, pages, memory or time)',
    503: 'The AI provider is unavailable',
  },
});
operation({
  path: '/documents/{id}',
  method: 'delete',
  tag,
  summary: 'Delete a document, its vectors and its file',
  responses: { 204: 'Deleted', 503: 'The vector store is unavailable; nothing was deleted' },
});
