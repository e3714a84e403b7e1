/**
 * Accepting an import: the records file is read once, streamed, to count its rows against
 * IMPORT_MAX_ROWS (413), check the CSV header (400) and note where each batch of rows
 * starts; the ZIP's central directory is opened to check it is one and count its entries.
 * Then the import record, and its workflow `import-<id>` does the rest.
 */
import { open } from 'node:fs/promises';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf } from '../../platform/outbox/record-event';
import { AppError, badRequest } from '../../platform/errors';
import { newWorkflowRecord, startWorkflowOrDiscard } from '../../platform/temporal/client';
import { IMPORT_FORMATS, Import, type ImportDoc, type ImportFormat } from '../../models/import';
import { bulkImport, importWorkflowId } from '../../workflows/import.shared';
import { sanitizeFilename, type ReceivedFile } from '../documents/upload-document';
import { csvCells, decode, readRecords, type Position } from './records';
import { IMPORT_COLUMNS, unknownColumn } from './rows';
import { openZip } from './zip-entries';

export const importBody = z.object({
  format: z.enum(IMPORT_FORMATS, `must be one of ${IMPORT_FORMATS.join(', ')}`).optional(),
});

const REQUIRED_COLUMNS = ['title', 'type', 'counterparty'];

/** JSON Lines when the first character that is not white space (or a BOM) is `{`; else CSV. */
async function sniffFormat(path: string): Promise<ImportFormat> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    return head.trimStart().startsWith('{') ? 'jsonl' : 'csv';
  } finally {
    await file.close();
  }
}

function checkHeader(bytes: Buffer | undefined): string[] {
  const text = bytes && decode(bytes);
  if (!text) throw badRequest('records: the CSV header row is not valid UTF-8');
  const cells = csvCells(text);
  if (typeof cells === 'string') throw badRequest(`records: the CSV header row is ${cells}`);
  const columns = cells.map((c) => c.trim());
  const unknown = unknownColumn(columns);
  if (unknown !== undefined)
    throw badRequest(`records: unknown column "${unknown.slice(0, 100)}" in the header; columns are ${IMPORT_COLUMNS.join(', ')}`);
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice) throw badRequest(`records: the column "${twice}" appears twice in the header`);
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length)
    throw badRequest(`records: the header lacks the required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return columns;
}

export interface ImportPlan {
  format: ImportFormat;
  columns?: string[];
  total: number;
  batches: Array<Position & { rows: number }>;
}

/** Reads the records file through once: its header, its row count and where each batch begins. */
export async function planImport(path: string, format: ImportFormat, maxRows: number, batchRows: number): Promise<ImportPlan> {
  let columns: string[] | undefined;
  let total = 0;
  const batches: ImportPlan['batches'] = [];
  for await (const record of readRecords(path, format)) {
    if (format === 'csv' && !columns) {
      if (record.error) throw badRequest(`records: the CSV header row ${record.error.replace(/^the row /, '')}`);
      columns = checkHeader(record.bytes);
      continue;
    }
    if (++total > maxRows) throw new AppError(413, `records: more than the ${maxRows} rows an import may have`);
    if ((total - 1) % batchRows === 0) batches.push({ line: record.line, offset: record.offset, rows: 0 });
    batches.at(-1)!.rows++;
  }
  if (format === 'csv' && !columns) throw badRequest('records: the file is empty; a CSV needs a header row');
  if (!total) throw badRequest('records: the file has no rows');
  return { format, columns, total, batches };
}

async function checkZip(s: Services, files: ReceivedFile): Promise<void> {
  let zip;
  try {
    zip = await openZip(files.path);
  } catch (err) {
    throw badRequest(`files: not a readable ZIP (${(err as Error).message})`);
  }
  const entries = zip.entryCount;
  zip.close();
  if (entries > s.config.IMPORT_ZIP_MAX_ENTRIES)
    throw new AppError(413, `files: the ZIP holds ${entries} entries, more than the ${s.config.IMPORT_ZIP_MAX_ENTRIES} allowed`);
}

export async function startImport(
  s: Services,
  p: Principal,
  received: { records: ReceivedFile; files?: ReceivedFile },
  body: z.infer<typeof importBody>,
): Promise<ImportDoc> {
  const { records, files } = received;
  if (records.size === 0) throw badRequest('records: is empty');
  const format = body.format ?? (await sniffFormat(records.path));
  const plan = await planImport(records.path, format, s.config.IMPORT_MAX_ROWS, s.config.IMPORT_BATCH_ROWS);
  if (files) await checkZip(s, files);
  const ids = newWorkflowRecord(importWorkflowId);
  const imported = await Import.create({
    ...ids,
    organization_id: new Types.ObjectId(p.organizationId),
    format,
    columns: plan.columns,
    records_name: sanitizeFilename(records.originalname),
    records_path: records.path,
    files_name: files ? sanitizeFilename(files.originalname) : null,
    files_path: files?.path ?? null,
    batches: plan.batches,
    rows: { total: plan.total, done: 0, failed: 0 },
    actor: actorOf(p),
    created_by: new Types.ObjectId(p.userId),
  });
  await startWorkflowOrDiscard(
    s,
    bulkImport,
    { workflowId: ids.workflow_id, args: [{ importId: imported.id }], organizationId: p.organizationId, recordId: imported.id },
    { discard: () => Import.deleteOne({ _id: imported._id }), notKept: 'the import was not started' },
  );
  return imported;
}
