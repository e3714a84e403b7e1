/** Reading imports: the list's query, and an import's rejected rows as CSV (`line,reason`), streamed. */
import type { Writable } from 'node:stream';
import { pageQuery } from '../../platform/lists/pagination';
import { choice } from '../../platform/input';
import { IMPORT_STATUSES, ImportRowError, type ImportDoc } from '../../models/import';

export const importListQuery = pageQuery.extend({ status: choice(IMPORT_STATUSES).optional() });

/** A CSV field: quoted when it holds a comma, quote or line break; a leading formula character is defused for spreadsheets. */
const csvField = (value: string) => {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export async function writeImportErrors(imported: ImportDoc, out: Writable): Promise<void> {
  out.write('line,reason\r\n');
  const cursor = ImportRowError.find({ organization_id: imported.organization_id, import_id: imported._id }, { line: 1, reason: 1 })
    .sort({ line: 1 })
    .lean()
    .cursor();
  for await (const row of cursor) {
    if (!out.write(`${row.line},${csvField(row.reason)}\r\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
}
