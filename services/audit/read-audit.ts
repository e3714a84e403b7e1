/** Reading and verifying an organization's identity audit log (admins and up); the reading is itself logged by the route. */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { chainedHash, GENESIS_HASH } from '../../platform/security/hash-chain';
import { orgFilter } from '../../models/base';
import { AUDIT_CATEGORIES, IdentityAudit, type AuditCategory } from '../../models/identity-audit';
import { hashedFields } from './append-audit';

/** At most this many rows answer at once; a wider range must be narrowed. */
export const AUDIT_EXPORT_MAX = 10_000;

export const auditQuery = z.object({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  category: z.enum(AUDIT_CATEGORIES).optional(),
  format: z.enum(['json', 'csv', 'jsonl']).optional(),
});

export const rowView = (r: InstanceType<typeof IdentityAudit>) => ({
  seq: r.seq,
  time: r.at.toISOString(),
  category: r.category,
  actor: { type: r.actor.type ?? null, id: r.actor.id ?? null, name: r.actor.name ?? null },
  ip: r.ip,
  user_agent: r.user_agent,
  action: r.action,
  target: r.target,
  result: r.result,
  status: r.status,
  hash: r.hash,
});
export type AuditRowView = ReturnType<typeof rowView>;

/** The rows of an organization's log that a range and a category select. */
export function auditFilter(organizationId: string, q: { from?: Date | null; to?: Date | null; category?: AuditCategory | null }) {
  const at: Record<string, Date> = {};
  if (q.from) at.$gte = q.from;
  if (q.to) at.$lte = q.to;
  return {
    ...orgFilter(organizationId),
    ...(q.category ? { category: q.category } : {}),
    ...(q.from || q.to ? { at: trusted(at) } : {}),
  };
}

export async function listAudit(p: Principal, q: z.infer<typeof auditQuery>): Promise<AuditRowView[]> {
  const filter = auditFilter(p.organizationId, {
    from: q.from ? new Date(q.from) : null,
    to: q.to ? new Date(q.to) : null,
    category: q.category ?? null,
  });
  if ((await IdentityAudit.countDocuments(filter)) > AUDIT_EXPORT_MAX)
    throw badRequest(
      `More than ${AUDIT_EXPORT_MAX} rows match: narrow from/to or the category, or export them as a job (POST /audit-log/exports)`,
    );
  return (await IdentityAudit.find(filter).sort({ seq: 1 })).map(rowView);
}

const CSV_COLUMNS = [
  'seq',
  'time',
  'category',
  'actor_type',
  'actor_id',
  'actor_name',
  'ip',
  'user_agent',
  'action',
  'target',
  'result',
  'status',
  'hash',
];
const csvCell = (v: string | number | null | undefined) => {
  const text = v === null || v === undefined ? '' : String(v);
  // A cell a spreadsheet would run as a formula is quoted as text.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export const AUDIT_CSV_HEADER = CSV_COLUMNS.join(',') + '\r\n';

/** One row as a CSV line, with its line end. */
export const auditCsvLine = (r: AuditRowView) =>
  [r.seq, r.time, r.category, r.actor.type, r.actor.id, r.actor.name, r.ip, r.user_agent, r.action, r.target, r.result, r.status, r.hash]
    .map(csvCell)
    .join(',') + '\r\n';

export const auditJsonLine = (r: AuditRowView) => JSON.stringify(r) + '\n';

export const auditCsv = (rows: AuditRowView[]) => AUDIT_CSV_HEADER + rows.map(auditCsvLine).join('');

export const auditJsonLines = (rows: AuditRowView[]) => rows.map(auditJsonLine).join('');

/** Walks the whole chain: the first row whose hash or link does not hold, or none. */
export async function verifyAudit(p: Principal): Promise<{ ok: boolean; rows: number; broken_at_seq: number | null }> {
  let prev = GENESIS_HASH;
  let n = 0;
  for await (const r of IdentityAudit.find(orgFilter(p.organizationId)).sort({ seq: 1 }).cursor()) {
    const row = {
      organization_id: p.organizationId,
      seq: r.seq,
      at: r.at,
      category: r.category,
      actor: { type: r.actor.type ?? '', id: r.actor.id ?? null, name: r.actor.name ?? null },
      ip: r.ip ?? null,
      user_agent: r.user_agent ?? null,
      action: r.action,
      target: r.target ?? null,
      result: r.result,
      status: r.status,
      prev_hash: r.prev_hash,
    };
    if (r.seq !== n || r.prev_hash !== prev || chainedHash(hashedFields(row)) !== r.hash)
      return { ok: false, rows: n, broken_at_seq: r.seq };
    prev = r.hash;
    n++;
  }
  return { ok: true, rows: n, broken_at_seq: null };
}
