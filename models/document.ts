import { Schema, model, type InferSchemaType, type HydratedDocument } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { defineList } from '../platform/lists/lists';

export const DOCUMENT_CATEGORIES = ['contract', 'policy', 'template', 'other'] as const;
export type DocumentCategory = (typeof DOCUMENT_CATEGORIES)[number];
export const DOCUMENT_STATUSES = ['processing', 'ready', 'failed'] as const;

/**
 * How far ingestion has come: chunks embedded and indexed of the document's total, which is
 * null until extraction has counted them. Ready documents show all of them done.
 */
const progressSchema = new Schema(
  {
    chunks_done: { type: Number, default: 0 },
    chunks_total: { type: Number, default: null },
  },
  { _id: false },
);

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
  /** The contract the document belongs to (its text of record when category is contract). */
  contract_id: { type: Schema.Types.ObjectId, default: null },
  progress: { type: progressSchema, default: () => ({}) },
  /** The bulk import that brought the file in (its ZIP), if one did. */
  import_id: { type: Schema.Types.ObjectId, default: null },
});
schema.plugin(basePlugin, { hidden: ['storage_path'] });
// The list index (platform/lists/list-index.ts) follows every write but progress updates
// (one per indexed batch): GET /documents/:id reads the record itself.
announceWrites(schema, { ignored: ['progress'], carried: ['contract_id'] });
// The list (documentList): newest first, optionally by category, status or contract.
schema.index({ organization_id: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, category: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, status: 1, created_at: -1, _id: -1 });
schema.index({ organization_id: 1, contract_id: 1, created_at: -1, _id: -1 });
// An import's files by state (services/imports/import-files.ts).
schema.index({ organization_id: 1, import_id: 1, status: 1 });

export type DocumentRecord = InferSchemaType<typeof schema>;
export type DocumentDoc = HydratedDocument<DocumentRecord>;
export const Document = model('Document', schema, 'documents');

export const documentList = defineList({
  name: 'documents',
  model: Document,
  filters: ['category', 'status', 'contract_id'],
  sort: { field: 'created_at', order: -1 },
  row: (d) => d.toJSON(),
});

/**
 * Chunks of a document between extraction and indexing, one record per indexing batch
 * (`_id` `<documentId>:<batch>`, see `stagedBatchId`), so the ingestion workflow's
 * embed-and-index batches read their chunks by `_id` (a lookup every FerretDB backend pushes
 * down) instead of carrying text through workflow history. A retried extraction
 * overwrites its batches by `_id` rather than adding. The chunks are one JSON string
 * (`chunks_json`, `Chunk[]`): FerretDB stores and reads a string for a third of the
 * CPU of a hundred subdocuments (bench/README.md, ingestion). `chunks`, the subdocuments, is
 * what workers before that staged: an ingestion in flight across the upgrade reads them.
 */
/**
 * A retrieval chunk of a document's text (services/search/chunking.ts makes them), as
 * staged here and indexed: its chunk id is `<documentId>:<index>`, its citation names `page`,
 * and `section` is the heading it falls under.
 */
export interface Chunk {
  index: number;
  page: number;
  section: string;
  /** Offsets into the pages' joined text (chunking.ts `fullText`): `text === fullText(pages).slice(start, end)`. */
  start: number;
  end: number;
  text: string;
}
const stagedChunkSchema = new Schema(
  {
    index: { type: Number, required: true },
    page: { type: Number, required: true },
    section: { type: String, default: '' },
    start: { type: Number, required: true },
    end: { type: Number, required: true },
    text: { type: String, required: true },
  },
  { _id: false },
);
const chunkBatchSchema = new Schema(
  {
    _id: { type: String, required: true },
    document_id: { type: Schema.Types.ObjectId, required: true },
    chunks_json: { type: String },
    chunks: { type: [stagedChunkSchema], default: undefined },
  },
  { versionKey: false },
);
chunkBatchSchema.index({ document_id: 1 });

export const DocumentChunkBatch = model('DocumentChunkBatch', chunkBatchSchema, 'document_chunk_batches');

export const stagedBatchId = (documentId: string, batch: number) => `${documentId}:${batch}`;

/** A staged record's chunks, in either form (see the schema). */
export const stagedChunks = (batch: { chunks_json?: string | null; chunks?: Chunk[] | null } | null): Chunk[] =>
  batch?.chunks_json ? (JSON.parse(batch.chunks_json) as Chunk[]) : (batch?.chunks ?? []);
