/**
 * Reading an import's records file through once, when it is accepted: its CSV header, its row
 * count against IMPORT_MAX_ROWS and where each batch of rows starts. A file of up to
 * IMPORT_RECORDS_MAX_BYTES takes seconds of splitting, so this runs in an offload thread
 * (planRecordsTask), never on the API's event loop; it answers a refusal rather than throwing,
 * as only plain data crosses back from the thread. It loads no model: the known columns come in.
 */
import { offloadTask } from '../../platform/offload';
import type { ImportFormat } from '../../models/import';
import { csvCells, decode, readRecords, type Position } from './records';

export interface ImportPlan {
  format: ImportFormat;
  columns?: string[];
  total: number;
  batches: Array<Position & { rows: number }>;
}

/** Why the file cannot be imported at all: 400 (malformed) or 413 (too many rows). */
export interface PlanRefusal {
  refusal: { code: 'invalid_request' | 'payload_too_large'; detail: string };
}

export interface PlanInput {
  path: string;
  format: ImportFormat;
  maxRows: number;
  batchRows: number;
  /** The columns a row may have, and those a CSV header must name. */
  known: readonly string[];
  required: readonly string[];
}

const refuse = (detail: string, code: PlanRefusal['refusal']['code'] = 'invalid_request'): PlanRefusal => ({ refusal: { code, detail } });

/** The header's columns, or why it cannot be one. */
function checkHeader(bytes: Buffer | undefined, known: readonly string[], required: readonly string[]): string[] | PlanRefusal {
  const text = bytes && decode(bytes);
  if (!text) return refuse('records: the CSV header row is not valid UTF-8');
  const cells = csvCells(text);
  if (typeof cells === 'string') return refuse(`records: the CSV header row is ${cells}`);
  const columns = cells.map((c) => c.trim());
  const unknown = columns.find((c) => !known.includes(c));
  if (unknown !== undefined)
    return refuse(`records: unknown column "${unknown.slice(0, 100)}" in the header; columns are ${known.join(', ')}`);
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice) return refuse(`records: the column "${twice}" appears twice in the header`);
  const missing = required.filter((c) => !columns.includes(c));
  if (missing.length) return refuse(`records: the header lacks the required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return columns;
}

export async function planRecords({ path, format, maxRows, batchRows, known, required }: PlanInput): Promise<ImportPlan | PlanRefusal> {
  let columns: string[] | undefined;
  let total = 0;
  const batches: ImportPlan['batches'] = [];
  for await (const record of readRecords(path, format)) {
    if (format === 'csv' && !columns) {
      if (record.error) return refuse(`records: the CSV header row ${record.error.replace(/^the row /, '')}`);
      const header = checkHeader(record.bytes, known, required);
      if ('refusal' in header) return header;
      columns = header;
      continue;
    }
    if (++total > maxRows) return refuse(`records: more than the ${maxRows} rows an import may have`, 'payload_too_large');
    if ((total - 1) % batchRows === 0) batches.push({ line: record.line, offset: record.offset, rows: 0 });
    batches.at(-1)!.rows++;
  }
  if (format === 'csv' && !columns) return refuse('records: the file is empty; a CSV needs a header row');
  if (!total) return refuse('records: the file has no rows');
  return { format, columns, total, batches };
}

export const planRecordsTask = offloadTask<typeof planRecords>(__filename, 'planRecords');
