/**
 * An export of the identity audit log as a job: any number of rows, written by the workflow
 * `audit-export-<id>` as a CSV or JSON Lines file under UPLOAD_DIR, then downloaded. Scoped to
 * the caller's organization like every read of the log; the route's requests are logged
 * (category `exports`) by the audit middleware.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { defineErrors } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { newWorkflowRecord, startWorkflowOrDiscard } from '../../platform/temporal/client';
import { AUDIT_CATEGORIES, IdentityAudit } from '../../models/identity-audit';
import { AUDIT_EXPORT_FORMATS, AuditExport, type AuditExportRecord } from '../../models/audit-export';
import { auditExport, auditExportWorkflowId, type AuditExportInput } from '../../workflows/audit-export.shared';
import { AUDIT_CSV_HEADER, auditCsvLine, auditFilter, auditJsonLine, rowView } from './read-audit';

export const auditExportErrors = defineErrors({
  audit_export_not_ready: { status: 409, meaning: 'The export is still being written, or failed: its status says which' },
});

export const auditExportBody = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  category: z.enum(AUDIT_CATEGORIES).optional(),
  format: z.enum(AUDIT_EXPORT_FORMATS).default('csv'),
});

const MIME = { csv: 'text/csv; charset=utf-8', jsonl: 'application/x-ndjson; charset=utf-8' } as const;

export const auditExportView = (e: AuditExportRecord) => ({
  id: e.id,
  status: e.status,
  from: e.from?.toISOString() ?? null,
  to: e.to?.toISOString() ?? null,
  category: e.category ?? null,
  format: e.format,
  rows: e.rows ?? null,
  bytes: e.bytes ?? null,
  error: e.error ?? null,
  created_at: e.created_at.toISOString(),
  completed_at: e.completed_at?.toISOString() ?? null,
});

export async function startAuditExport(s: Engines, p: Principal, body: z.infer<typeof auditExportBody>) {
  const record = await AuditExport.create({
    ...newWorkflowRecord(auditExportWorkflowId),
    organization_id: p.organizationId,
    from: body.from ? new Date(body.from) : null,
    to: body.to ? new Date(body.to) : null,
    category: body.category ?? null,
    format: body.format,
    requested_by: p.id,
  });
  await startWorkflowOrDiscard(
    s,
    auditExport,
    {
      workflowId: record.workflow_id,
      args: [{ organizationId: p.organizationId, exportId: record.id }],
      organizationId: p.organizationId,
      recordId: record.id,
    },
    { discard: () => AuditExport.deleteOne({ _id: record._id }), notKept: 'no export was started' },
  );
  return auditExportView(record);
}

export const getAuditExport = async (p: Principal, id: string) => auditExportView(await findOwned(AuditExport, p, id, 'Export'));

/** The finished file of an export, to send. */
export async function openAuditExport(s: Engines, p: Principal, id: string) {
  const e = await findOwned(AuditExport, p, id, 'Export');
  if (e.status !== 'done' || !e.file)
    throw auditExportErrors.audit_export_not_ready(`The export is ${e.status}: download it once its status is done`);
  return {
    path: path.resolve(s.config.UPLOAD_DIR, e.file),
    type: MIME[e.format],
    filename: `audit-log-${e.id}.${e.format}`,
  };
}

/** Writes the rows to a temporary file and renames it at the end: a retried run starts over, never appends. */
export async function writeAuditExport(s: Engines, input: AuditExportInput): Promise<void> {
  const e = await AuditExport.findOne({ _id: input.exportId, organization_id: input.organizationId });
  if (e?.status !== 'running') return;
  const file = path.join('audit-exports', input.organizationId, `${e.id}.${e.format}`);
  const target = path.resolve(s.config.UPLOAD_DIR, file);
  await mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const filter = auditFilter(input.organizationId, { from: e.from, to: e.to, category: e.category });
  const { format } = e;
  let rows = 0;
  // Streamed from a cursor: the file may hold far more rows than fit in memory at once.
  async function* lines() {
    if (format === 'csv') yield AUDIT_CSV_HEADER;
    for await (const r of IdentityAudit.find(filter).sort({ seq: 1 }).cursor()) {
      rows++;
      yield format === 'csv' ? auditCsvLine(rowView(r)) : auditJsonLine(rowView(r));
    }
  }
  await pipeline(lines, createWriteStream(partial));
  await rename(partial, target);
  const { size } = await stat(target);
  await AuditExport.updateOne(
    { _id: e._id, status: 'running' },
    { $set: { status: 'done', file, rows, bytes: size, completed_at: new Date() } },
  );
}

export async function failAuditExport(input: AuditExportInput & { error: string }): Promise<void> {
  await AuditExport.updateOne(
    { _id: input.exportId, organization_id: input.organizationId, status: 'running' },
    { $set: { status: 'failed', error: input.error.slice(0, 500), completed_at: new Date() } },
  );
}
