/**
 * What an import row may hold: the fields of `POST /contracts` (the same rules), a `status`
 * (imported agreements are often already active or expired) and `file`, the name of its
 * agreement in the ZIP. CSV cells are text, so a `value` cell is read as a number first.
 */
import { z } from 'zod';
import { AppError } from '../../platform/errors';
import { choice } from '../../platform/input';
import { CONTRACT_STATUSES } from '../../models/contract';
import { checkDates, createContractBody } from '../contracts/edit-contract';

export const importRow = createContractBody.omit({ document_id: true }).extend({
  status: choice(CONTRACT_STATUSES).optional(),
  file: z.string().trim().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters').optional(),
});
export type ImportRow = z.infer<typeof importRow>;

export const IMPORT_COLUMNS: readonly string[] = Object.keys(importRow.shape);
const known = new Set(IMPORT_COLUMNS);

/** The first unknown column of a CSV header or a JSON row, if any. */
export const unknownColumn = (names: Iterable<string>) => [...names].find((n) => !known.has(n));

const NUMBER = /^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/;

/** A row's fields as a contract to create, or why not. */
export function validateRow(fields: Record<string, unknown>, fromCsv: boolean): { row: ImportRow } | { error: string } {
  const unknown = unknownColumn(Object.keys(fields));
  if (unknown !== undefined) return { error: `unknown column "${unknown.slice(0, 100)}"` };
  const input = { ...fields };
  if (fromCsv && typeof input.value === 'string') {
    if (!NUMBER.test(input.value)) return { error: 'value: must be a number' };
    input.value = Number(input.value);
  }
  const parsed = importRow.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message };
  }
  try {
    checkDates(parsed.data);
  } catch (err) {
    if (err instanceof AppError) return { error: err.detail };
    throw err;
  }
  return { row: parsed.data };
}
