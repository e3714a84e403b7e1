/** Reading imports: one by id, a page of them, and an import's rejected rows as CSV (`line,reason`), streamed. */
import type { Writable } from 'node:stream';
import type { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { listPage } from '../../platform/lists/list-index';
import { pageQuery } from '../../platform/lists/pagination';
import { choice } from '../../platform/input';
import { IMPORT_STATUSES, Import, ImportRowError, importList, type ImportDoc } from '../../models/import';

export const importListQuery = pageQuery.extend({ status: choice(IMPORT_STATUSES).optional() });

/** A CSV field: quoted when it holds a comma, quote or line break; a leading formula character is defused for spreadsheets. */
const csvField = (value: string) => {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export const getImport = (p: Pick<Principal, 'organizationId'>, id: unknown): Promise<ImportDoc> => findOwned(Import, p, id, 'Import');

/** A page of the organization's imports and its exact total. */
export function listImports(s: Engines, p: Pick<Principal, 'organizationId'>, q: z.infer<typeof importListQuery>) {
  return listPage(s, importList, p.organizationId, { equal: q.status ? { status: q.status } : {} }, q);
}

/** An import's rejected rows: its id (to name the file) before a line is written, then the lines. */
export async function openImportErrors(p: Pick<Principal, 'organizationId'>, id: unknown) {
  const imported = await getImport(p, id);
  return { importId: imported.id, write: (out: Writable) => writeImportErrors(imported, out) };
}

async function writeImportErrors(imported: ImportDoc, out: Writable): Promise<void> {
  out.write('line,reason\r\n');
  const cursor = ImportRowError.find({ organization_id: imported.organization_id, import_id: imported._id }, { line: 1, reason: 1 })
    .sort({ line: 1 })
    .lean()
    .cursor();
  for await (const row of cursor) {
    if (!out.write(`${row.line},${csvField(row.reason)}\r\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
}
