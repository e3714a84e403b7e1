/**
 * An import after its rows: waiting for its files' ingestion, extracting key terms a batch at
 * a time (one activity for many contracts instead of a workflow per contract), and the end,
 * which records `import.completed` or `import.failed` and removes the uploaded files.
 * Each step is safe to run again: counts are written whole, the end is recorded once.
 */
import { rm } from 'node:fs/promises';
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { exclusively } from '../../platform/claims';
import { recordEvent, type Actor } from '../../platform/outbox/record-event';
import { Document } from '../../models/document';
import { Import, ImportFileClaim, IMPORT_PHASES, ImportSlot, type ImportDoc } from '../../models/import';
import { extractContractTerms, optOutDeadline } from '../contracts/contract-terms';
import { scheduleRenewalReminders } from '../contracts/renewal-deadlines';
import { batchRows, hasText, loadImport, rowRecordId } from './import-batch';
import { validateRow } from './rows';

export async function startImportPhase(importId: string, phase: (typeof IMPORT_PHASES)[number], termsTotal?: number): Promise<void> {
  await Import.updateOne(
    { _id: new Types.ObjectId(importId), status: 'running' },
    { $set: { phase, phase_started_at: new Date(), ...(termsTotal === undefined ? {} : { terms_total: termsTotal }) } },
  );
}

/** Counts the import's files by state; `pending` are still being ingested. */
export async function importFileProgress(importId: string, filesRejected: number): Promise<{ pending: number }> {
  const imported = await loadImport(importId);
  const of = (status: 'ready' | 'failed' | 'processing') =>
    Document.countDocuments({ organization_id: imported.organization_id, import_id: imported._id, status });
  const [ingested, failed, pending] = await Promise.all([of('ready'), of('failed'), of('processing')]);
  await Import.updateOne(
    { _id: imported._id, status: 'running' },
    { $set: { 'files.ingested': ingested, 'files.failed': filesRejected + failed } },
  );
  return { pending };
}

/**
 * Extracts the key terms of the batch's imported contracts that have text (content, or a
 * file now ingested). A contract gets its renewal workflow only when its terms give an
 * opt-out deadline: a new contract has none running to re-plan.
 */
export async function extractImportTerms(
  s: Engines,
  { importId, batch, before }: { importId: string; batch: number; before: number },
  onContract: () => void,
): Promise<{ extracted: number; stopped: boolean }> {
  const imported = await loadImport(importId);
  if (imported.status !== 'running') return { extracted: 0, stopped: true };
  const organizationId = imported.organization_id.toHexString();
  let extracted = 0;
  for await (const { line, fields } of batchRows(imported, batch)) {
    const checked = fields && validateRow(fields, imported.format === 'csv');
    if (!checked || !('row' in checked) || !hasText(checked.row)) continue;
    const contractId = rowRecordId(importId, 'contract', line).toHexString();
    const view = await extractContractTerms(s, organizationId, contractId);
    onContract();
    if (!view) continue;
    extracted++;
    if (optOutDeadline(view.terms, { start_date: checked.row.start_date ?? null, end_date: checked.row.end_date ?? null }))
      await scheduleRenewalReminders(s, organizationId, contractId);
  }
  await Import.updateOne({ _id: imported._id, status: 'running' }, { $set: { terms_extracted: before + extracted } });
  return { extracted, stopped: false };
}

const importEventData = (i: ImportDoc) => ({
  id: i.id,
  status: i.status,
  rows: { total: i.rows.total, done: i.rows.done, failed: i.rows.failed },
  files: { total: i.files.total, ingested: i.files.ingested, failed: i.files.failed },
  terms_extracted: i.terms_extracted,
  started_at: i.started_at.toISOString(),
  finished_at: i.finished_at?.toISOString() ?? null,
  error: i.error ?? null,
});

/** Gives back what a running import holds in the store: its slot among the organization's running imports, its files' claims. */
export async function releaseImport(importId: string): Promise<void> {
  const id = new Types.ObjectId(importId);
  await Promise.all([ImportSlot.deleteMany({ import_id: id }), ImportFileClaim.deleteMany({ import_id: id })]);
}

/**
 * Ends the import (if it still runs) with its event, and removes its uploaded files and gives back
 * its slot either way; true when this call ended it. The end is written under the import's claim (platform/claims.ts):
 * of a cancel, many cancels and the workflow's own end landing together, exactly one ends it,
 * which a conditional write alone does not ensure on FerretDB 1.24.
 */
export async function finishImport(importId: string, status: 'completed' | 'failed' | 'cancelled', error?: string): Promise<boolean> {
  const ended = await exclusively('import-end', importId, async () => {
    if ((await loadImport(importId)).status !== 'running') return null;
    return Import.findOneAndUpdate(
      { _id: new Types.ObjectId(importId), status: 'running' },
      { $set: { status, finished_at: new Date(), error: error ?? null } },
      { returnDocument: 'after' },
    );
  });
  const imported = ended ?? (await loadImport(importId));
  if (ended && status !== 'cancelled') {
    const { rows } = ended;
    await recordEvent({
      organizationId: ended.organization_id.toHexString(),
      type: status === 'completed' ? 'import.completed' : 'import.failed',
      data: importEventData(ended),
      actor: ended.actor as Actor,
      resource: { type: 'import', id: ended.id },
      summary:
        status === 'completed'
          ? `Import of "${ended.records_name}" completed: ${rows.done} contracts created, ${rows.failed} rows rejected`
          : `Import of "${ended.records_name}" failed after ${rows.done} contracts: ${error ?? 'unknown error'}`,
    });
  }
  await Promise.all([imported.records_path, imported.files_path].flatMap((p) => (p ? [rm(p, { force: true })] : [])));
  await releaseImport(importId);
  return ended !== null;
}
