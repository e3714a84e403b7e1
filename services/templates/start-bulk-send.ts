/**
 * Accepting a bulk send from a template (`POST /templates/:id/bulk-send`): the template must
 * be published; the CSV is planned as an import's records file is (offload thread, row count
 * against IMPORT_MAX_ROWS, 400 for a bad header), its header checked against the template's
 * variables and the signer columns; then it takes one of the organization's running-import
 * slots (409 when none is free), is recorded as an import of kind `bulk_send` (progress,
 * rejected rows and cancel as for imports) and its workflow `bulk-send-<id>` does the rows.
 */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf } from '../../platform/outbox/record-event';
import { badRequest } from '../../platform/errors';
import { newWorkflowRecord, startWorkflowOrDiscard } from '../../platform/temporal/client';
import { Import, type ImportDoc } from '../../models/import';
import { bulkSend, bulkSendWorkflowId } from '../../workflows/bulk-send.shared';
import { sanitizeFilename, type ReceivedFile } from '../documents/document-files';
import { claimImportSlot } from '../imports/import-slots';
import { releaseImport } from '../imports/import-phases';
import { planImport } from '../imports/start-import';
import { bulkSendColumns, signerColumnsProblem } from './bulk-send-rows';
import { draftVariables, templateVersion, visibleTemplate } from './template-view';
import { templateErrors } from './errors';

/** Rows per batch activity: each row renders a PDF (about 1.5 s), so a batch is a few minutes' work at most. */
export const BULK_SEND_BATCH_ROWS = 50;

export async function startBulkSend(s: Engines, p: Principal, templateId: unknown, file: ReceivedFile): Promise<ImportDoc> {
  const t = await visibleTemplate(p, templateId);
  if (t.status !== 'published' || !t.published_version)
    throw templateErrors.template_not_published('The template has no published version to send from');
  if (file.size === 0) throw badRequest('file: is empty');
  const v = await templateVersion(t, t.published_version);
  const defs = await draftVariables(t.organization_id, v);
  const { known, required } = bulkSendColumns(defs);
  const plan = await planImport(s, file.path, 'csv', { known, required, batchRows: BULK_SEND_BATCH_ROWS });
  const problem = signerColumnsProblem(plan.columns ?? []);
  if (problem) throw badRequest(`file: ${problem}`);

  const ids = newWorkflowRecord(bulkSendWorkflowId);
  const organizationId = new Types.ObjectId(p.organizationId);
  await claimImportSlot(s, organizationId, ids._id);
  const imported = await Import.create({
    ...ids,
    organization_id: organizationId,
    kind: 'bulk_send',
    bulk_send: { template_id: t._id, role: p.role },
    format: 'csv',
    columns: plan.columns,
    records_name: sanitizeFilename(file.originalname),
    records_path: file.path,
    batches: plan.batches,
    rows: { total: plan.total, done: 0, failed: 0 },
    actor: actorOf(p),
    created_by: new Types.ObjectId(p.userId),
  }).catch(async (err: unknown) => {
    await releaseImport(ids._id.toHexString());
    throw err;
  });
  await startWorkflowOrDiscard(
    s,
    bulkSend,
    { workflowId: ids.workflow_id, args: [{ importId: imported.id }], organizationId: p.organizationId, recordId: imported.id },
    {
      discard: async () => {
        await Import.deleteOne({ _id: ids._id });
        await releaseImport(ids._id.toHexString());
      },
      notKept: 'the bulk send was not started',
    },
  );
  return imported;
}
