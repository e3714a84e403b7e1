/**
 * One batch of a bulk send's rows: each row is read as a draft's variables and signers, its
 * contract drafted from the template's published version (draftFromTemplate, the rules of
 * `POST /contracts` with `template_id`) and its signature request sent (sendSignatureRequest,
 * the rules of `POST /signatures`: the approval gate and the daily recipient quota). A row
 * whose contract the approval policies hold back gets its approval started and is reported
 * as awaiting approval, not sent. Rows run PDF_RENDER_CONCURRENCY at a time (each renders a
 * PDF with LibreOffice).
 *
 * Safe to run again: a row is claimed (a unique insert) before it is drafted, so a batch re-run
 * by a retry counts the outcome the first run recorded and drafts nothing twice; reasons are
 * upserted per line and progress is written as absolute counts.
 */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import type { Role } from '../../platform/security/rbac';
import type { Actor } from '../../platform/outbox/record-event';
import { AppError } from '../../platform/errors';
import { isDuplicateKey } from '../../platform/mongo';
import { BulkSendRow, Import, ImportRowError, type ImportDoc } from '../../models/import';
import { batchRows, loadImport } from '../imports/import-batch';
import type { Row } from '../imports/records';
import { startApproval } from '../approvals/start-approval';
import { sendSignatureRequest, signatureRequestBody } from '../signatures/send-signature-request';
import { draftFromTemplate, draftFromTemplateBody } from './draft-from-template';
import { readBulkSendRow } from './bulk-send-rows';
import { draftVariables, templateVersion } from './template-view';
import { Template } from '../../models/template';

type Outcome = 'sent' | 'awaiting_approval' | 'rejected';

export interface SendBatchInput {
  importId: string;
  batch: number;
  /** Counts of the batches before this one, so progress is written whole. */
  before: { done: number; failed: number; sent: number; awaitingApproval: number };
}

export interface SendBatchResult {
  done: number;
  failed: number;
  sent: number;
  awaitingApproval: number;
  stopped: boolean;
  more: boolean;
}

/** Who sent the bulk send, as its rows are drafted and sent. */
function senderOf(i: ImportDoc): Principal {
  const actor = i.actor as Actor;
  return {
    kind: actor.type === 'api_key' ? 'api_key' : 'user',
    id: actor.id ?? String(i.created_by),
    userId: String(i.created_by),
    organizationId: i.organization_id.toHexString(),
    role: i.bulk_send!.role as Role,
    name: actor.name ?? '',
  };
}

const message = (err: unknown) => (err instanceof AppError ? err.detail : null);

/** What became of one row; throws only what a retry may cure (an engine down). */
async function sendRow(s: Engines, i: ImportDoc, p: Principal, defs: Parameters<typeof readBulkSendRow>[0], row: Row) {
  const reject = (reason: string) => ({ outcome: 'rejected' as const, reason });
  if (!row.fields) return reject(row.error ?? 'the row could not be read');
  const read = readBulkSendRow(defs, row.fields);
  if ('error' in read) return reject(read.error);
  const draft = draftFromTemplateBody.safeParse({
    ...read.contract,
    template_id: i.bulk_send!.template_id.toHexString(),
    variables: read.variables,
  });
  if (!draft.success) return reject(issueText(draft.error.issues[0]!));
  const signers = signatureRequestBody.safeParse({ contract_id: new Types.ObjectId().toHexString(), signers: read.signers });
  if (!signers.success) return reject(issueText(signers.error.issues[0]!));

  try {
    await BulkSendRow.create({ organization_id: i.organization_id, import_id: i._id, line: row.line });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const earlier = await BulkSendRow.findOne({ import_id: i._id, line: row.line }).lean();
    if (earlier?.outcome === 'sent' || earlier?.outcome === 'awaiting_approval') return { outcome: earlier.outcome, reason: null };
    if (earlier?.outcome === 'rejected') return null;
    return reject('the row was interrupted while it was being sent; look for its contract before sending it again');
  }
  const claim = { import_id: i._id, line: row.line };
  let contractId: Types.ObjectId | null = null;
  try {
    const { contract } = await draftFromTemplate(s, p, draft.data);
    contractId = contract._id;
    const { sig } = await sendSignatureRequest(s, p, { ...signers.data, contract_id: contract.id }, s.config.SIGNATURE_REMINDER_INTERVAL);
    await BulkSendRow.updateOne(claim, { $set: { outcome: 'sent', contract_id: contract._id, signature_id: sig._id } });
    return { outcome: 'sent' as const, reason: null };
  } catch (err) {
    const detail = message(err);
    if (detail === null) {
      // Not the row's fault: the claim is given back so a retry of the batch sends it.
      if (!contractId) await BulkSendRow.deleteOne(claim);
      throw err;
    }
    if (contractId && err instanceof AppError && err.code === 'approval_required') {
      const started = await startApproval(s, p, contractId.toHexString());
      await BulkSendRow.updateOne(claim, { $set: { outcome: 'awaiting_approval', contract_id: contractId } });
      const which = started.required ? ` (approval ${started.approval.id})` : '';
      return { outcome: 'awaiting_approval' as const, reason: `contract ${contractId.toHexString()} awaits approval${which}; not sent` };
    }
    await BulkSendRow.updateOne(claim, { $set: { outcome: 'rejected', contract_id: contractId } });
    return reject(contractId ? `contract ${contractId.toHexString()} drafted but not sent: ${detail}` : detail);
  }
}

const issueText = (issue: { path: PropertyKey[]; message: string }) =>
  issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;

/** Runs `work` on every item, at most `limit` at a time. */
async function eachAtMost<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function bulkSendBatch(s: Engines, { importId, batch, before }: SendBatchInput): Promise<SendBatchResult> {
  const i = await loadImport(importId);
  const more = batch + 1 < i.batches.length;
  if (i.status !== 'running' || !i.bulk_send) return { done: 0, failed: 0, sent: 0, awaitingApproval: 0, stopped: true, more };
  const p = senderOf(i);
  const t = await Template.findOne({ _id: i.bulk_send.template_id, organization_id: i.organization_id });
  const v = t?.published_version ? await templateVersion(t, t.published_version) : null;
  const defs = v ? await draftVariables(i.organization_id, v) : [];
  await BulkSendRow.init();

  const rows: Row[] = [];
  for await (const row of batchRows(i, batch)) rows.push(row);
  const counts: Record<Outcome, number> = { sent: 0, awaiting_approval: 0, rejected: 0 };
  await eachAtMost(rows, s.config.PDF_RENDER_CONCURRENCY, async (row) => {
    const r = v
      ? await sendRow(s, i, p, defs, row)
      : { outcome: 'rejected' as const, reason: 'the template has no published version any more' };
    // null: rejected by an earlier run of this batch, whose reason stands.
    counts[r?.outcome ?? 'rejected']++;
    if (r?.reason)
      await ImportRowError.updateOne(
        { import_id: i._id, line: row.line },
        { $set: { organization_id: i.organization_id, reason: r.reason } },
        { upsert: true },
      );
  });
  const result = {
    done: counts.sent + counts.awaiting_approval,
    failed: counts.rejected,
    sent: counts.sent,
    awaitingApproval: counts.awaiting_approval,
  };
  await Import.updateOne(
    { _id: i._id, status: 'running' },
    {
      $set: {
        'rows.done': before.done + result.done,
        'rows.failed': before.failed + result.failed,
        'bulk_send.sent': before.sent + result.sent,
        'bulk_send.awaiting_approval': before.awaitingApproval + result.awaitingApproval,
      },
    },
  );
  return { ...result, stopped: false, more };
}
