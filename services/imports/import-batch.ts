/**
 * One batch of an import's rows: each valid row becomes a contract (with `contract.created`,
 * marked with the import's id), its file from the ZIP a document of category `contract`
 * attached to it and ingested by the usual workflow `ingest-<documentId>`; each rejected row
 * gets its line and reason.
 *
 * Safe to run again (a restarted worker, a retried activity): the contract, document and
 * event of a row have ids derived from the import and the line, so a second run's inserts
 * find the first run's records (duplicate keys, passed over) and create nothing twice; the
 * ingestion start finds its workflow id taken; reasons are upserted per line; progress is
 * written as absolute numbers.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { trusted, Types, type Model } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { formatBytes, lackOfRoom } from '../../platform/disk';
import { isDuplicateKey } from '../../platform/mongo';
import { startWorkflow } from '../../platform/temporal/client';
import { Contract, contractEventData, type ContractDoc } from '../../models/contract';
import { Document } from '../../models/document';
import { Event } from '../../models/event';
import { Import, ImportFileClaim, ImportRowError, type ImportDoc } from '../../models/import';
import { Vendor } from '../../models/vendor';
import { documentIngestion, ingestionWorkflowId } from '../../workflows/document-ingestion.shared';
import { MIME, sanitizeFilename } from '../documents/document-files';
import { readRows, type Row } from './records';
import { validateRow, type ImportRow } from './rows';
import { ImportRefusedError } from './errors';
import { entryProblem, extractEntry, findEntries, ImportFileError, openZip, type FoundEntry } from './zip-entries';

/** A record id of an import row: the import's time, then a hash of the import, the kind and the line. */
export function rowRecordId(importId: string, kind: 'contract' | 'document' | 'event', line: number): Types.ObjectId {
  const hash = createHash('sha256').update(`${importId}:${kind}:${line}`).digest();
  return new Types.ObjectId(Buffer.concat([Buffer.from(importId, 'hex').subarray(0, 4), hash.subarray(0, 8)]));
}

/** Inserts what is not there yet; a record a previous run inserted is a duplicate key, passed over. */
async function insertNew(model: Model<never>, docs: readonly object[]): Promise<void> {
  if (!docs.length) return;
  try {
    await model.insertMany(docs, { ordered: false });
  } catch (err) {
    const errors = (err as { writeErrors?: unknown[] }).writeErrors;
    if (!isDuplicateKey(err) || !errors?.every(isDuplicateKey)) throw err;
  }
}

export async function loadImport(importId: string): Promise<ImportDoc> {
  const found = await Import.findById(importId);
  if (!found) throw new Error(`import ${importId} not found`);
  return found;
}

/** The rows of batch `batch` of the import, as written. */
export async function* batchRows(imported: ImportDoc, batch: number): AsyncGenerator<Row> {
  const at = imported.batches[batch];
  if (!at) return;
  yield* readRows(imported.records_path, imported.format, imported.columns ?? [], { line: at.line!, offset: at.offset! }, at.rows!);
}

/** Whether an imported row has text its terms can be found in. */
export const hasText = (row: ImportRow) => !!row.file || !!row.content?.trim();

interface Accepted {
  line: number;
  row: ImportRow;
  /** The file written from the ZIP, when the row names one. */
  file?: { path: string; mime: string; size: number };
}

export interface BatchInput {
  importId: string;
  batch: number;
  /** Counts of the batches before this one, so progress is written whole; `inflated`: the bytes their files took out of the ZIP. */
  before: { done: number; failed: number; files: number; filesRejected: number; inflated?: number };
}

export interface BatchResult {
  done: number;
  failed: number;
  files: number;
  filesRejected: number;
  withText: number;
  /** Bytes this batch's files took out of the ZIP. */
  inflated: number;
  /** The import is no longer running (cancelled): nothing was done. */
  stopped: boolean;
  /** Batches follow this one. */
  more: boolean;
}

/**
 * The line that takes each file the rows name: the first row of the whole import to name it
 * claims it (a claim of an earlier batch, or of this batch's first run, stands), by name hash.
 */
async function claimFiles(imported: ImportDoc, named: readonly Accepted[]): Promise<Map<string, number>> {
  const first = new Map<string, number>();
  for (const r of named) {
    const hash = nameHash(r.row.file!);
    if (!first.has(hash)) first.set(hash, r.line);
  }
  await ImportFileClaim.init();
  const claims = [...first].map(([name_hash, line]) => ({
    organization_id: imported.organization_id,
    import_id: imported._id,
    name_hash,
    line,
  }));
  await insertNew(ImportFileClaim as unknown as Model<never>, claims);
  const found = await ImportFileClaim.find(
    { import_id: imported._id, name_hash: trusted({ $in: [...first.keys()] }) },
    { name_hash: 1, line: 1 },
  ).lean();
  return new Map(found.map((c) => [c.name_hash, c.line]));
}

const nameHash = (name: string) => createHash('sha256').update(name).digest('hex');

/**
 * Takes each named file out of the ZIP, once per import: a row naming a file an earlier row
 * took is rejected, naming that row. Before a byte is written, the batch's files must fit
 * within the import's inflated-bytes limit and leave the disk its reserve, or the import fails
 * (ImportRefusedError). A row whose file fails is rejected with the reason. Answers the rows
 * kept and the bytes their files hold.
 */
async function takeFiles(
  s: Engines,
  imported: ImportDoc,
  rows: Accepted[],
  reject: (line: number, reason: string) => void,
  inflatedBefore: number,
): Promise<{ rows: Accepted[]; inflated: number }> {
  const named = rows.filter((r) => r.row.file);
  if (!named.length) return { rows, inflated: 0 };
  const failed = new Set<number>();
  const fail = (r: Accepted, reason: string) => {
    failed.add(r.line);
    reject(r.line, `file "${r.row.file!.slice(0, 200)}": ${reason}`);
  };
  const kept = () => rows.filter((r) => !failed.has(r.line));
  if (!imported.files_path) {
    for (const r of named) fail(r, 'no ZIP of files came with the import');
    return { rows: kept(), inflated: 0 };
  }
  const claims = await claimFiles(imported, named);
  for (const r of named) {
    const line = claims.get(nameHash(r.row.file!));
    if (line !== r.line) fail(r, `line ${line} names the same file, and each file of the ZIP is imported once`);
  }
  const limits = { maxBytes: s.config.UPLOAD_MAX_BYTES };
  const zip = await openZip(imported.files_path);
  try {
    const taking = named.filter((r) => !failed.has(r.line));
    const entries = await findEntries(zip, new Set(taking.map((r) => r.row.file!)));
    const extract: Array<{ r: Accepted; entry: FoundEntry }> = [];
    for (const r of taking) {
      const entry = entries.get(r.row.file!);
      const problem = entry ? entryProblem(entry, limits) : 'not in the ZIP';
      if (problem) fail(r, problem);
      else extract.push({ r, entry: entry! });
    }
    // What passes entryProblem inflates to its declared size at most.
    const planned = extract.reduce((sum, { entry }) => sum + entry.entry.uncompressedSize, 0);
    const cap = imported.max_inflated_bytes ?? s.config.IMPORT_MAX_INFLATED_BYTES;
    if (inflatedBefore + planned > cap)
      throw new ImportRefusedError(
        `the files of the ZIP inflate to more than the ${formatBytes(cap)} an import may take out (IMPORT_MAX_INFLATED_BYTES): ` +
          `${formatBytes(inflatedBefore)} taken out so far, and the files of the rows from line ${named[0]!.line} on would add ${formatBytes(planned)}`,
      );
    const lack = planned && (await lackOfRoom(path.resolve(s.config.UPLOAD_DIR), s.config.IMPORT_DISK_RESERVE_BYTES, planned));
    if (lack) throw new ImportRefusedError(lack);
    let inflated = 0;
    for (const { r, entry } of extract) {
      const dest = path.resolve(s.config.UPLOAD_DIR, `import-${imported.id}-${r.line}`);
      try {
        const mime = await extractEntry(zip, entry, dest, limits);
        r.file = { path: dest, mime, size: entry.entry.uncompressedSize };
        inflated += entry.entry.uncompressedSize;
      } catch (err) {
        if (!(err instanceof ImportFileError)) throw err;
        fail(r, err.message);
      }
    }
    return { rows: kept(), inflated };
  } finally {
    zip.close();
  }
}

/** Rows naming a vendor that is not the organization's are rejected. */
async function checkVendors(imported: ImportDoc, rows: Accepted[], reject: (line: number, reason: string) => void) {
  const named = [...new Set(rows.flatMap((r) => (r.row.vendor_id ? [r.row.vendor_id] : [])))];
  if (!named.length) return rows;
  const found = await Vendor.find(
    { organization_id: imported.organization_id, _id: trusted({ $in: named.map((id) => new Types.ObjectId(id)) }) },
    { _id: 1 },
  ).lean();
  const known = new Set(found.map((v) => v._id.toHexString()));
  return rows.filter((r) => {
    if (!r.row.vendor_id || known.has(r.row.vendor_id)) return true;
    reject(r.line, 'vendor_id: no such vendor');
    return false;
  });
}

export async function importBatch(s: Engines, { importId, batch, before }: BatchInput): Promise<BatchResult> {
  const imported = await loadImport(importId);
  if (imported.status !== 'running')
    return { done: 0, failed: 0, files: 0, filesRejected: 0, withText: 0, inflated: 0, stopped: true, more: false };
  const lack = await lackOfRoom(path.resolve(s.config.UPLOAD_DIR), s.config.IMPORT_DISK_RESERVE_BYTES, 0);
  if (lack) throw new ImportRefusedError(lack);
  const result = await writeBatch(s, imported, batch, before.inflated ?? 0);
  // Counted whatever the status now is: a batch under way when the import was cancelled still
  // created its contracts (the counts are absolute, so a retried batch sets the same values).
  await Import.updateOne(
    { _id: imported._id },
    {
      $set: {
        'rows.done': before.done + result.done,
        'rows.failed': before.failed + result.failed,
        'files.total': before.files + result.files,
        'files.failed': before.filesRejected + result.filesRejected,
      },
    },
  );
  return { ...result, stopped: false, more: batch + 1 < imported.batches.length };
}

/** The records of one batch's rows: contracts, documents, events, rejected rows, ingestion starts. */
export async function writeBatch(s: Engines, imported: ImportDoc, batch: number, inflatedBefore = 0) {
  const importId = imported.id;
  const rejected = new Map<number, string>();
  const reject = (line: number, reason: string) => rejected.set(line, reason);
  let accepted: Accepted[] = [];
  for await (const { line, fields, error } of batchRows(imported, batch)) {
    const checked = fields ? validateRow(fields, imported.format === 'csv') : { error: error! };
    if ('error' in checked) reject(line, checked.error);
    else accepted.push({ line, row: checked.row });
  }
  accepted = await checkVendors(imported, accepted, reject);
  const files = accepted.filter((r) => r.row.file).length;
  const afterVendors = rejected.size;
  const taken = await takeFiles(s, imported, accepted, reject, inflatedBefore);
  accepted = taken.rows;
  const filesRejected = rejected.size - afterVendors;

  const organizationId = imported.organization_id;
  const createdBy = imported.created_by;
  const documents = accepted.flatMap(({ line, row, file }) =>
    file
      ? [
          {
            _id: rowRecordId(importId, 'document', line),
            organization_id: organizationId,
            filename: sanitizeFilename(row.file!),
            size_bytes: file.size,
            mime_type: file.mime,
            category: 'contract',
            status: 'processing',
            uploaded_by: createdBy?.toHexString() ?? 'import',
            storage_path: file.path,
            contract_id: rowRecordId(importId, 'contract', line),
            workflow_id: ingestionWorkflowId(rowRecordId(importId, 'document', line).toHexString()),
            import_id: imported._id,
          },
        ]
      : [],
  );
  const contracts: ContractDoc[] = accepted.map(({ line, row, file }) => {
    const { file: _file, ...fields } = row;
    return new Contract({
      ...fields,
      _id: rowRecordId(importId, 'contract', line),
      organization_id: organizationId,
      status: row.status ?? 'draft',
      created_by: createdBy,
      // The PDF of record is sealed on signing, so only a PDF can be it; a DOCX stays the text of record.
      document_id: file?.mime === MIME.pdf ? rowRecordId(importId, 'document', line) : null,
    });
  });
  const now = new Date();
  const events = contracts.map((c, i) => ({
    _id: rowRecordId(importId, 'event', accepted[i]!.line),
    organization_id: organizationId,
    type: 'contract.created',
    // `import_id` tells consumers the import extracts its key terms itself, in batches.
    data: { ...contractEventData(c), import_id: importId },
    actor: imported.actor,
    resource_type: 'contract',
    resource_id: c.id,
    summary: `Contract "${c.title}" created by import`,
    occurred_at: now,
  }));

  // Documents before the contracts that name them, events after their contracts.
  await insertNew(Document as unknown as Model<never>, documents);
  await insertNew(Contract as unknown as Model<never>, contracts);
  await insertNew(Event as unknown as Model<never>, events);
  if (rejected.size)
    await ImportRowError.bulkWrite(
      [...rejected].map(([line, reason]) => ({
        updateOne: {
          filter: { import_id: imported._id, line },
          update: { $set: { reason }, $setOnInsert: { organization_id: organizationId } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  for (const doc of documents) {
    const documentId = doc._id.toHexString();
    await startWorkflow(s, documentIngestion, {
      workflowId: doc.workflow_id,
      args: [{ documentId, termsLater: true }],
      organizationId: organizationId.toHexString(),
      recordId: documentId,
      // Nobody waits for an import's files one by one: bulk work, behind single uploads.
      workClass: 'bulk',
    });
  }
  return {
    done: accepted.length,
    failed: rejected.size,
    files,
    filesRejected,
    withText: accepted.filter((r) => hasText(r.row)).length,
    inflated: taken.inflated,
  };
}
