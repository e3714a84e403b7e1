/**
 * What a bulk-send CSV may hold for a template: a column per variable (a party's or a money
 * variable's fields as `party.name`, `fee.amount`; `rows` variables cannot be given in a CSV),
 * the contract's `counterparty` and optional `title`, and the signers as `signer_<n>_name` and `signer_<n>_email` (n from 1,
 * at most 20, as a signature request allows). A row's cells become the draft's variables (CSV
 * text read as numbers, yes/no or dates where the variable asks) and the request's signers.
 */
import { PARTY_FIELDS, type VariableDef } from '../clause-library/variables';

export const MAX_SIGNERS = 20;
/** The contract's own fields a row may give (the rest come from the template). */
const CONTRACT_COLUMNS = ['title', 'counterparty'] as const;
const SIGNER = /^signer_(\d+)_(name|email)$/;
const YES = new Set(['yes', 'true', 'y', '1']);
const NO = new Set(['no', 'false', 'n', '0']);
const NUMBER = /^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/;

/** The columns a template's CSV may have, and those its header must name. */
export function bulkSendColumns(defs: readonly VariableDef[]): { known: string[]; required: string[] } {
  const known: string[] = [...CONTRACT_COLUMNS];
  const required = ['counterparty', 'signer_1_name', 'signer_1_email'];
  for (const d of defs) {
    const needed = d.required && d.default === undefined;
    if (d.type === 'party') {
      known.push(...PARTY_FIELDS.map((f) => `${d.name}.${f}`));
      if (needed) required.push(`${d.name}.name`);
    } else if (d.type === 'money') {
      known.push(`${d.name}.amount`, `${d.name}.currency`);
      if (needed) required.push(`${d.name}.amount`);
    } else if (d.type !== 'rows') {
      known.push(d.name);
      if (needed) required.push(d.name);
    } else if (needed) required.push(d.name);
  }
  for (let n = 1; n <= MAX_SIGNERS; n++) known.push(`signer_${n}_name`, `signer_${n}_email`);
  return { known, required };
}

/** Why a header whose columns are all known still cannot be sent: a signer named without an email, or the reverse. */
export function signerColumnsProblem(columns: readonly string[]): string | null {
  for (const c of columns) {
    const m = SIGNER.exec(c);
    if (!m) continue;
    const other = `signer_${m[1]}_${m[2] === 'name' ? 'email' : 'name'}`;
    if (!columns.includes(other)) return `the header has ${c} but not ${other}`;
  }
  return null;
}

export interface BulkSendRow {
  contract: Partial<Record<(typeof CONTRACT_COLUMNS)[number], string>>;
  variables: Record<string, unknown>;
  signers: Array<{ name: string; email: string }>;
}

/** A CSV cell as the variable's value, or why it cannot be one. */
function cellValue(def: VariableDef | undefined, field: string | null, cell: string): { value: unknown } | { error: string } {
  if (def?.type === 'number' || (def?.type === 'money' && field === 'amount'))
    return NUMBER.test(cell) ? { value: Number(cell) } : { error: 'must be a number' };
  if (def?.type === 'yes_no') {
    const v = cell.trim().toLowerCase();
    return YES.has(v) ? { value: true } : NO.has(v) ? { value: false } : { error: 'must be yes or no' };
  }
  return { value: cell };
}

/** A row's cells (empty ones left out) as a draft's variables and signers, or the first problem. */
export function readBulkSendRow(defs: readonly VariableDef[], fields: Record<string, unknown>): BulkSendRow | { error: string } {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const variables: Record<string, unknown> = {};
  const signers = new Map<number, { name?: string; email?: string }>();
  const contract: BulkSendRow['contract'] = {};
  for (const [column, raw] of Object.entries(fields)) {
    const cell = String(raw);
    const signer = SIGNER.exec(column);
    if (signer) {
      const n = Number(signer[1]);
      signers.set(n, { ...signers.get(n), [signer[2]!]: cell.trim() });
      continue;
    }
    if ((CONTRACT_COLUMNS as readonly string[]).includes(column)) {
      contract[column as (typeof CONTRACT_COLUMNS)[number]] = cell;
      continue;
    }
    const [name, field = null] = column.split('.', 2) as [string, string | undefined];
    const def = byName.get(name);
    const read = cellValue(def, field, cell);
    if ('error' in read) return { error: `${column}: ${read.error}` };
    if (field === null) variables[name] = read.value;
    else variables[name] = { ...(variables[name] as object | undefined), [field]: read.value };
  }
  const list: BulkSendRow['signers'] = [];
  for (const n of [...signers.keys()].sort((a, b) => a - b)) {
    const x = signers.get(n)!;
    if (!x.name || !x.email) return { error: `signer_${n}: needs both a name and an email` };
    list.push({ name: x.name, email: x.email });
  }
  if (!list.length) return { error: 'signer_1_name, signer_1_email: the row names no signer' };
  return { contract, variables, signers: list };
}
