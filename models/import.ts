import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { defineList } from '../platform/lists/lists';

export const IMPORT_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
/** What the import's workflow is doing: creating contracts, waiting for their files' ingestion, extracting key terms. */
export const IMPORT_PHASES = ['rows', 'files', 'terms'] as const;
/** What the job makes of its rows: contracts (`POST /imports`), or contracts drafted from a template and sent for signature (`POST /templates/:id/bulk-send`). */
export const IMPORT_KINDS = ['contracts', 'bulk_send'] as const;

const count = { type: Number, default: 0, required: true } as const;
const subdocument = <T extends Schema>(schema: T) => ({ type: schema, default: () => ({}), required: true }) as const;
const rowCounts = new Schema({ total: count, done: count, failed: count }, { _id: false });
const fileCounts = new Schema({ total: count, ingested: count, failed: count }, { _id: false });
/** A bulk send's template, the caller's role its rows are drafted and sent with, and how its contracts went. */
const bulkSendSchema = new Schema(
  {
    template_id: { type: Schema.Types.ObjectId, required: true },
    role: { type: String, required: true },
    sent: count,
    awaiting_approval: count,
  },
  { _id: false },
);

/**
 * One bulk import (`POST /imports`) and its progress, worked through by the workflow
 * `import-<id>`. The records file and the ZIP stay under UPLOAD_DIR until it ends. `batches`
 * is where each batch of rows starts in the records file (line and byte offset), found when
 * the import was accepted, so every batch reads only its own part.
 */
const schema = new Schema(
  {
    ...tenantFields,
    kind: { type: String, enum: IMPORT_KINDS, default: 'contracts' },
    bulk_send: { type: bulkSendSchema, default: null },
    status: { type: String, enum: IMPORT_STATUSES, default: 'running' },
    phase: { type: String, enum: IMPORT_PHASES, default: 'rows' },
    phase_started_at: { type: Date, default: () => new Date() },
    format: { type: String, enum: IMPORT_FORMATS, required: true },
    /** The CSV header's columns (JSON Lines rows name their own). */
    columns: { type: [String], default: undefined },
    records_name: { type: String, required: true },
    records_path: { type: String, required: true },
    files_name: { type: String, default: null },
    files_path: { type: String, default: null },
    batches: { type: [{ _id: false, line: Number, offset: Number, rows: Number }], default: [] },
    /** IMPORT_MAX_INFLATED_BYTES when the import was accepted: what its ZIP's files may inflate to, together. */
    max_inflated_bytes: { type: Number, default: null },
    rows: subdocument(rowCounts),
    files: subdocument(fileCounts),
    terms_extracted: { type: Number, default: 0 },
    /** Contracts with text to extract terms from (content or a file): the terms phase's total. */
    terms_total: { type: Number, default: 0 },
    /** Who imported: the actor of every event the import records. */
    actor: {
      type: { type: String, required: true },
      id: { type: String, default: null },
      name: { type: String, default: null },
    },
    created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },
    workflow_id: { type: String, default: null },
    error: { type: String, default: null },
    started_at: { type: Date, default: () => new Date() },
    finished_at: { type: Date, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin, { hidden: ['records_path', 'files_path', 'batches', 'columns', 'actor', 'terms_total', 'max_inflated_bytes'] });
schema.index({ organization_id: 1, created_at: -1, _id: -1 });

export type ImportDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Import = model('Import', schema, 'imports');

/** A row the import rejected (or whose file failed), once per line: a re-run batch finds its own. */
const rowErrorSchema = new Schema({
  ...tenantFields,
  import_id: { type: Schema.Types.ObjectId, required: true },
  line: { type: Number, required: true },
  reason: { type: String, required: true },
});
rowErrorSchema.plugin(basePlugin);
rowErrorSchema.index({ import_id: 1, line: 1 }, { unique: true });

export const ImportRowError = model('ImportRowError', rowErrorSchema, 'import_row_errors');

/**
 * A bulk-send row taken on: inserted (the unique index lets one insert win) before its contract
 * is drafted, so a batch run again never drafts or sends a row twice; then its outcome.
 */
const sendRowSchema = new Schema({
  ...tenantFields,
  import_id: { type: Schema.Types.ObjectId, required: true },
  line: { type: Number, required: true },
  outcome: { type: String, enum: ['started', 'sent', 'awaiting_approval', 'rejected'], default: 'started' },
  contract_id: { type: Schema.Types.ObjectId, default: null },
  signature_id: { type: Schema.Types.ObjectId, default: null },
});
sendRowSchema.plugin(basePlugin);
sendRowSchema.index({ import_id: 1, line: 1 }, { unique: true });

export const BulkSendRow = model('BulkSendRow', sendRowSchema, 'bulk_send_rows');

/**
 * Which line of an import takes each file of its ZIP: inserted by the first row naming it (the
 * unique index makes the first insert win), so a file is taken out once however many rows name
 * it. `name_hash` (SHA-256 of the entry's name) keeps the key short; removed when the import ends.
 */
const fileClaimSchema = new Schema({
  ...tenantFields,
  import_id: { type: Schema.Types.ObjectId, required: true },
  name_hash: { type: String, required: true },
  line: { type: Number, required: true },
});
fileClaimSchema.plugin(basePlugin);
fileClaimSchema.index({ import_id: 1, name_hash: 1 }, { unique: true });

export const ImportFileClaim = model('ImportFileClaim', fileClaimSchema, 'import_file_claims');

/**
 * One of an organization's IMPORT_MAX_RUNNING_PER_ORG places for a running import. Taken by
 * inserting it (the unique index on organization and slot lets one insert win, where a count
 * then an insert would let simultaneous requests all through), given back when the import ends.
 */
const slotSchema = new Schema({
  ...tenantFields,
  slot: { type: Number, required: true },
  import_id: { type: Schema.Types.ObjectId, required: true, index: true },
  claimed_at: { type: Date, required: true },
});
slotSchema.plugin(basePlugin);
slotSchema.index({ organization_id: 1, slot: 1 }, { unique: true });

export const ImportSlot = model('ImportSlot', slotSchema, 'import_slots');

/**
 * How long what is left of the current phase takes at the pace measured in it so far; null
 * once finished or before anything of the phase is done.
 */
function etaSeconds(i: ImportDoc, now: number): number | null {
  if (i.status !== 'running') return null;
  const [done, total] =
    i.phase === 'rows'
      ? [i.rows.done + i.rows.failed, i.rows.total]
      : i.phase === 'files'
        ? [i.files.ingested + i.files.failed, i.files.total]
        : [i.terms_extracted, i.terms_total];
  const elapsed = (now - i.phase_started_at.getTime()) / 1000;
  if (done === 0 || elapsed <= 0) return null;
  return Math.max(0, Math.round(((total - done) * elapsed) / done));
}

/** `GET /imports/:id` (and each item of `GET /imports`). */
export function importView(i: ImportDoc, now = Date.now()) {
  return {
    id: i.id,
    kind: i.kind,
    ...(i.bulk_send
      ? {
          bulk_send: {
            template_id: i.bulk_send.template_id.toHexString(),
            sent: i.bulk_send.sent,
            awaiting_approval: i.bulk_send.awaiting_approval,
          },
        }
      : {}),
    status: i.status,
    phase: i.status === 'running' ? i.phase : null,
    format: i.format,
    records_name: i.records_name,
    files_name: i.files_name ?? null,
    rows: { total: i.rows.total, done: i.rows.done, failed: i.rows.failed },
    files: { total: i.files.total, ingested: i.files.ingested, failed: i.files.failed },
    terms_extracted: i.terms_extracted,
    started_at: i.started_at,
    finished_at: i.finished_at ?? null,
    eta_seconds: etaSeconds(i, now),
    errors_url: `/api/v1/imports/${i.id}/errors`,
    error: i.error ?? null,
    created_by: i.created_by?.toHexString() ?? null,
    created_at: i.created_at,
    updated_at: i.updated_at,
  };
}

/** `GET /imports`: newest first, optionally by status. */
export const importList = defineList({
  name: 'imports',
  model: Import,
  filters: ['status'],
  sort: { field: 'created_at', order: -1 },
  row: (i) => importView(i),
});
