import { Schema, model, type InferSchemaType, type HydratedDocument } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const DOCUMENT_CATEGORIES = ['contract', 'policy', 'template', 'other'] as const;
export type DocumentCategory = (typeof DOCUMENT_CATEGORIES)[number];
export const DOCUMENT_STATUSES = ['processing', 'ready', 'failed'] as const;

/**
 * An uploaded file and its indexing state. The file lives on disk under UPLOAD_DIR
 * (`storage_path`, never serialized); its chunks live in the vector store.
 */
const schema = new Schema({
  ...tenantFields,
  filename: { type: String, required: true },
  size_bytes: { type: Number, required: true },
  mime_type: { type: String, required: true },
  category: { type: String, enum: DOCUMENT_CATEGORIES, required: true },
  status: { type: String, enum: DOCUMENT_STATUSES, required: true, default: 'processing' },
  error: { type: String, default: null },
  chunk_count: { type: Number, default: 0 },
  page_count: { type: Number, default: null },
  workflow_id: { type: String, default: null },
  uploaded_by: { type: String, required: true },
  storage_path: { type: String, required: true },
  processed_at: { type: Date, default: null },
});
schema.plugin(basePlugin, { hidden: ['storage_path'] });
schema.index({ organization_id: 1, created_at: -1 });

export type DocumentRecord = InferSchemaType<typeof schema>;
export type DocumentDoc = HydratedDocument<DocumentRecord>;
export const Document = model('Document', schema, 'documents');

/**
 * Chunks of a document between extraction and indexing, so the ingestion workflow's
 * embed-and-index batches read them by range instead of carrying text through workflow
 * history. `_id` is the chunk id, so a retried extraction overwrites rather than adds.
 */
const chunkSchema = new Schema(
  {
    _id: { type: String, required: true },
    document_id: { type: Schema.Types.ObjectId, required: true },
    index: { type: Number, required: true },
    page: { type: Number, required: true },
    section: { type: String, default: '' },
    start: { type: Number, required: true },
    end: { type: Number, required: true },
    text: { type: String, required: true },
  },
  { versionKey: false },
);
chunkSchema.index({ document_id: 1, index: 1 });

export const DocumentChunk = model('DocumentChunk', chunkSchema, 'document_chunks');
