/**
 * Cancelling an import: its workflow is cancelled (the batch under way ends, no further batch
 * starts, the uploaded files are removed) and the import shows `cancelled` at once. Contracts
 * already created stay, as do their documents' ingestions; a batch under way finishes, and its
 * contracts are counted in `rows.done`.
 */
import { unavailable } from '../../platform/errors';
import type { Engines } from '../../platform/engines';
import { cancelWorkflow } from '../../platform/temporal/client';
import type { Principal } from '../../platform/security/principal';
import { type ImportDoc } from '../../models/import';
import { bulkImportWorkflowId } from '../../workflows/import.shared';
import { importErrors } from './errors';
import { finishImport } from './import-phases';
import { getImport } from './list-imports';

/** Answers the import as it is once cancelled. */
export async function cancelImport(s: Engines, p: Principal, id: unknown): Promise<ImportDoc> {
  const imported = await getImport(p, id);
  if (imported.status !== 'running')
    throw importErrors.import_not_running(`Import is ${imported.status}; only a running import can be cancelled`);
  // A workflow already gone (false) has nothing left to stop. A bulk send's workflow is `bulk-send-<id>`: the record names it.
  await cancelWorkflow(s, imported.workflow_id ?? bulkImportWorkflowId(imported.id)).catch((err: unknown) => {
    s.logger.error({ err, importId: imported.id }, 'could not cancel the import workflow');
    throw unavailable('The workflow engine is unavailable; the import was not cancelled, try again shortly');
  });
  // Of many cancels at once (each saw it running), the one that ends it answers; the others are told it ended.
  if (!(await finishImport(s, imported.id, 'cancelled')))
    throw importErrors.import_not_running('Import is no longer running; it was cancelled or ended meanwhile');
  return getImport(p, id);
}
