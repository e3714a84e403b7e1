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
import type { Services } from '../../platform/engines';
import { isDuplicateKey } from '../../platform/mongo';
import { startWorkflow } from '../../platform/temporal/client';
import { Contract, contractEventData, type ContractDoc } from '../../models/contract';
import { Document } from '../../models/document';
import { Event } from '../../models/event';
import { Import, ImportRowError, type ImportDoc } from '../../models/import';
import { Vendor } from '../../models/vendor';
import { documentIngestion } from '../../workflows/document-ingestion.shared';
import { sanitizeFilename } from '../documents/upload-document';
import { MIME } from '../documents/extraction';
import { readRows, type Row } from './records';
import { validateRow, type ImportRow } from './rows';
import { extractEntry, findEntries, ImportFileError, openZip } from './zip-entries';
import { makeNewContractsSearchable } from '../search/reflect-contracts';

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
  /** Counts of the batches before this one, so progress is written whole. */
  before: { done: number; failed: number; files: number; filesRejected: number };
}

export interface BatchResult {
  done: number;
  failed: number;
  files: number;
  filesRejected: number;
  withText: number;
  /** The import is no longer running (cancelled): nothing was done. */
  stopped: boolean;
  /** Batches follow this one. */
  more: boolean;
}

/** Takes each named file out of the ZIP; a row whose file fails is rejected with the reason. */
async function takeFiles(s: Services, imported: ImportDoc, rows: Accepted[], reject: (line: number, reason: string) => void) {
  const named = rows.filter((r) => r.row.file);
  if (!named.length) return rows;
  const failed = new Set<number>();
  const fail = (r: Accepted, reason: string) => {
    failed.add(r.line);
    reject(r.line, `file "${r.row.file!.slice(0, 200)}": ${reason}`);
  };
  if (!imported.files_path) {
    for (const r of named) fail(r, 'no ZIP of files came with the import');
    return rows.filter((r) => !failed.has(r.line));
  }
  const zip = await openZip(imported.files_path);
  try {
    const entries = await findEntries(zip, new Set(named.map((r) => r.row.file!)));
    for (const r of named) {
      const entry = entries.get(r.row.file!);
      if (!entry) {
        fail(r, 'not in the ZIP');
        continue;
      }
      const dest = path.resolve(s.config.UPLOAD_DIR, `import-${imported.id}-${r.line}`);
      try {
        const mime = await extractEntry(zip, entry, dest, { maxBytes: s.config.UPLOAD_MAX_BYTES });
        r.file = { path: dest, mime, size: entry.entry.uncompressedSize };
      } catch (err) {
        if (!(err instanceof ImportFileError)) throw err;
        fail(r, err.message);
      }
    }
  } finally {
    zip.close();
  }
  return rows.filter((r) => !failed.has(r.line));
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

export async function importBatch(s: Services, { importId, batch, before }: BatchInput): Promise<BatchResult> {
  const imported = await loadImport(importId);
  if (imported.status !== 'running') return { done: 0, failed: 0, files: 0, filesRejected: 0, withText: 0, stopped: true, more: false };
  const result = await writeBatch(s, imported, batch);
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
export async function writeBatch(s: Services, imported: ImportDoc, batch: number) {
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
  accepted = await takeFiles(s, imported, accepted, reject);
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
            workflow_id: `ingest-${rowRecordId(importId, 'document', line).toHexString()}`,
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
  // Searchable once the batch is done (the search consumer passes over import events).
  await makeNewContractsSearchable(s, contracts);
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
  };
}
