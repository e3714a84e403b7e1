/** The OpenAPI description of the import operations (api/routes/imports.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { IMPORT_FORMATS, IMPORT_KINDS, IMPORT_PHASES, IMPORT_STATUSES } from '../../models/import';
import { importBody } from '../../services/imports/start-import';
import { importListQuery } from '../../services/imports/list-imports';
import { IMPORT_COLUMNS } from '../../services/imports/rows';
import { operation, pageOf, registry, timestamp } from '../http/openapi';

/** importView (models/import.ts). */
const importSchema = registry.register(
  'Import',
  z.object({
    id: idSchema,
    kind: z.enum(IMPORT_KINDS).meta({ description: '`contracts` (POST /imports) or `bulk_send` (POST /templates/{id}/bulk-send)' }),
    bulk_send: z
      .object({
        template_id: idSchema,
        sent: z.int().meta({ description: 'Contracts drafted and sent for signature' }),
        awaiting_approval: z.int().meta({ description: 'Contracts drafted and held for approval, not sent (each row in the errors CSV)' }),
      })
      .optional()
      .meta({ description: 'Only for a bulk send' }),
    status: z.enum(IMPORT_STATUSES),
    phase: z
      .enum(IMPORT_PHASES)
      .nullable()
      .meta({ description: 'While running: creating contracts (`rows`), waiting for their files to be ingested, or extracting key terms' }),
    format: z.enum(IMPORT_FORMATS),
    records_name: z.string(),
    files_name: z.string().nullable(),
    rows: z.object({ total: z.int(), done: z.int().meta({ description: 'Contracts created' }), failed: z.int() }),
    files: z.object({ total: z.int(), ingested: z.int(), failed: z.int() }),
    terms_extracted: z.int(),
    started_at: timestamp,
    finished_at: timestamp.nullable(),
    eta_seconds: z
      .int()
      .nullable()
      .meta({ description: 'Estimated seconds left in the current phase, at the pace measured in it; null when not yet known or ended' }),
    errors_url: z.string().meta({ description: 'Path of the rejected rows as CSV (`line,reason`)' }),
    error: z.string().nullable().meta({ description: 'Why a failed import stopped' }),
    created_by: idSchema.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

const tag = 'Imports';
const one = { description: 'The import', schema: importSchema };
operation({
  path: '/imports',
  method: 'post',
  tag,
  summary: 'Import contracts in bulk from a CSV or JSON Lines file, with an optional ZIP of their PDF and DOCX files',
  description: `Answers 202 at once; the workflow \`import-<id>\` creates the contracts a batch at a time (each emits \`contract.created\` with \`import_id\`), ingests each row's file as the contract's document (category \`contract\`; a PDF also becomes its \`document_id\`), then extracts key terms in batches. Columns (CSV header, or JSON keys): ${IMPORT_COLUMNS.join(', ')}; title, type and counterparty are required, as in POST /contracts, and \`file\` names an entry of the ZIP. A row that cannot be imported (malformed, an unknown column, a bad value or date, its file missing, not a PDF or DOCX, over the file limits, a decompression bomb or an unsafe name) is rejected with its line and reason; the rest goes on. Each file of the ZIP is taken out once: the first row naming it gets it, and a later row naming the same file is rejected, naming that line. The import fails (\`error\` says why) when its files would inflate past IMPORT_MAX_INFLATED_BYTES together, or when a batch would leave the disk less than IMPORT_DISK_RESERVE_BYTES free; nothing more is written then. Ends with \`import.completed\` or \`import.failed\`.`,
  multipart: importBody.extend({
    records: z.string().meta({ format: 'binary', description: 'CSV with a header row, or JSON Lines (one object per line); UTF-8' }),
    files: z.string().optional().meta({ format: 'binary', description: 'A ZIP of the PDF and DOCX files the rows name' }),
  }),
  responses: {
    202: one,
    400: 'No records file, an unreadable header, an unknown or missing header column, no rows, or a ZIP that cannot be read',
    409: 'The organization already runs IMPORT_MAX_RUNNING_PER_ORG imports (`too_many_running_imports`)',
    413: 'The records file or ZIP is over its byte limit, the records over the row limit, or the ZIP over the entry limit',
    503: 'The workflow engine is unavailable; nothing was kept',
    507: 'The disk would keep less than IMPORT_DISK_RESERVE_BYTES free with the upload on it; nothing was received',
  },
});
operation({
  path: '/imports',
  method: 'get',
  tag,
  summary: 'List imports (newest first), optionally by status',
  query: importListQuery,
  responses: { 200: { description: 'A page of imports', schema: pageOf('imports', importSchema) } },
});
operation({ path: '/imports/{id}', method: 'get', tag, summary: 'Progress of an import', responses: { 200: one } });
operation({
  path: '/imports/{id}/errors',
  method: 'get',
  tag,
  summary: 'The rejected rows of an import as CSV: `line,reason`, by line',
  responses: { 200: { description: 'CSV', schema: z.string(), contentType: 'text/csv' } },
});
operation({
  path: '/imports/{id}/cancel',
  method: 'post',
  tag,
  summary: 'Cancel a running import; contracts already created stay',
  responses: { 200: one, 409: 'The import has already ended', 503: 'The workflow engine is unavailable; the import runs on' },
});
