/**
 * Accepting an import: the records file is read once, streamed, in an offload thread, to count
 * its rows against IMPORT_MAX_ROWS (413), check the CSV header (400) and note where each batch
 * of rows starts; the ZIP's central directory is opened to check it is one and count its
 * entries. Then the import takes one of its organization's running-import slots (409 when none
 * is free), its record is written with the limits it runs under, and its workflow
 * `import-<id>` does the rest.
 */
import { open } from 'node:fs/promises';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf } from '../../platform/outbox/record-event';
import { AppError, badRequest } from '../../platform/errors';
import { OffloadTimeoutError } from '../../platform/offload';
import { newWorkflowRecord, startWorkflowOrDiscard } from '../../platform/temporal/client';
import { IMPORT_FORMATS, Import, type ImportDoc, type ImportFormat } from '../../models/import';
import { bulkImport, bulkImportWorkflowId } from '../../workflows/import.shared';
import { sanitizeFilename, type ReceivedFile } from '../documents/document-files';
import { claimImportSlot } from './import-slots';
import { releaseImport } from './import-phases';
import { planRecordsTask, type ImportPlan } from './plan-records';
import { IMPORT_COLUMNS } from './rows';
import { openZip } from './zip-entries';

export const importBody = z.object({
  format: z.enum(IMPORT_FORMATS, `must be one of ${IMPORT_FORMATS.join(', ')}`).optional(),
});

const REQUIRED_COLUMNS = ['title', 'type', 'counterparty'];
/** A records file at IMPORT_RECORDS_MAX_BYTES is split in seconds; past this its thread is stopped. */
const PLAN_BUDGET_MS = 120_000;

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

/** The records file's plan (header, row count, batches), or its refusal as a 400 or 413; a bulk send names its own columns and batch size. */
export async function planImport(
  s: Engines,
  path: string,
  format: ImportFormat,
  columns: { known: readonly string[]; required: readonly string[]; batchRows?: number } = {
    known: IMPORT_COLUMNS,
    required: REQUIRED_COLUMNS,
  },
): Promise<ImportPlan> {
  const input = {
    path,
    format,
    maxRows: s.config.IMPORT_MAX_ROWS,
    batchRows: columns.batchRows ?? s.config.IMPORT_BATCH_ROWS,
    known: columns.known,
    required: columns.required,
  };
  const plan = await s.offload.run(planRecordsTask, input, { timeoutMs: PLAN_BUDGET_MS }).catch((err: unknown) => {
    if (err instanceof OffloadTimeoutError)
      throw new AppError('payload_too_large', 'records: the file could not be read within the time allowed');
    throw err;
  });
  if ('refusal' in plan) throw new AppError(plan.refusal.code, plan.refusal.detail);
  return plan;
}

async function checkZip(s: Engines, files: ReceivedFile): Promise<void> {
  let zip;
  try {
    zip = await openZip(files.path);
  } catch (err) {
    throw badRequest(`files: not a readable ZIP (${(err as Error).message})`);
  }
  const entries = zip.entryCount;
  zip.close();
  if (entries > s.config.IMPORT_ZIP_MAX_ENTRIES)
    throw new AppError(
      'payload_too_large',
      `files: the ZIP holds ${entries} entries, more than the ${s.config.IMPORT_ZIP_MAX_ENTRIES} allowed`,
    );
}

export async function startImport(
  s: Engines,
  p: Principal,
  received: { records: ReceivedFile; files?: ReceivedFile },
  body: z.infer<typeof importBody>,
): Promise<ImportDoc> {
  const { records, files } = received;
  if (records.size === 0) throw badRequest('records: is empty');
  const format = body.format ?? (await sniffFormat(records.path));
  const plan = await planImport(s, records.path, format);
  if (files) await checkZip(s, files);
  const ids = newWorkflowRecord(bulkImportWorkflowId);
  const organizationId = new Types.ObjectId(p.organizationId);
  await claimImportSlot(s, organizationId, ids._id);
  const discard = async () => {
    await Import.deleteOne({ _id: ids._id });
    await releaseImport(ids._id.toHexString());
  };
  const imported = await Import.create({
    ...ids,
    organization_id: organizationId,
    format,
    columns: plan.columns,
    records_name: sanitizeFilename(records.originalname),
    records_path: records.path,
    files_name: files ? sanitizeFilename(files.originalname) : null,
    files_path: files?.path ?? null,
    batches: plan.batches,
    max_inflated_bytes: s.config.IMPORT_MAX_INFLATED_BYTES,
    rows: { total: plan.total, done: 0, failed: 0 },
    actor: actorOf(p),
    created_by: new Types.ObjectId(p.userId),
  }).catch(async (err: unknown) => {
    await releaseImport(ids._id.toHexString());
    throw err;
  });
  await startWorkflowOrDiscard(
    s,
    bulkImport,
    { workflowId: ids.workflow_id, args: [{ importId: imported.id }], organizationId: p.organizationId, recordId: imported.id },
    { discard, notKept: 'the import was not started' },
  );
  return imported;
}
