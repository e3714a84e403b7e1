/**
 * A template's typed variables (pure): how they are declared, the JSON Schema a front end
 * builds its form from, how a draft's values are checked (every wrong field named at once),
 * how values print in the document, and which key terms they state.
 */
import { z } from 'zod';
import { choice, requiredText } from '../../platform/input';
import { KEY_TERMS, NORMALIZED, type KeyTermName } from '../contracts/key-terms.shared';

export const VARIABLE_TYPES = ['text', 'number', 'money', 'date', 'choice', 'yes_no', 'party', 'rows'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];
/** What a column of repeating rows may hold. */
const COLUMN_TYPES = ['text', 'number', 'money', 'date'] as const;
export const PARTY_FIELDS = ['name', 'address', 'signatory'] as const;

/** Names a tag may use: letters, digits and underscores, never an expression. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const name = z.string().regex(NAME, 'must be letters, digits and underscores, starting with a letter or underscore');
const currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD');

const column = z.strictObject({ name, label: requiredText(200), type: choice(COLUMN_TYPES).default('text') });

/** One declared variable; `default` and `options` are checked against its type in `checkDeclarations`. */
export const variableSchema = z.strictObject({
  name,
  type: choice(VARIABLE_TYPES),
  label: requiredText(200),
  required: z.boolean('must be true or false').default(true),
  default: z.unknown().optional(),
  /** For `choice`: the values one may pick. */
  options: z.array(requiredText(200)).min(1, 'must list at least one option').max(200, 'must list at most 200 options').optional(),
  /** For `money`: the currency when a value gives none. */
  currency: currency.optional(),
  /** For `rows`: the columns of each row. */
  columns: z.array(column).min(1, 'must declare at least one column').max(20, 'must declare at most 20 columns').optional(),
  /** The key term the value states (known without extraction, marked as from the template). */
  key_term: choice(KEY_TERMS).optional(),
});
export type VariableDef = z.infer<typeof variableSchema>;

/** Which key terms a type can state, and how its value reads as the term's normalized form. */
const TERMS_BY_TYPE: Partial<Record<VariableType, readonly KeyTermName[]>> = {
  text: ['governing_law', 'dispute_venue'],
  choice: ['governing_law', 'dispute_venue'],
  number: ['term_length', 'renewal_term', 'non_renewal_notice_days', 'payment_terms'],
  money: ['liability_cap'],
  date: ['effective_date', 'end_date'],
  yes_no: ['auto_renewal', 'termination_for_convenience'],
  party: ['parties'],
};

const money = (def: VariableDef) =>
  z.strictObject({
    amount: z.number('must be a number').min(0, 'must not be negative').max(1e15, 'is too large'),
    currency: def.currency ? currency.default(def.currency) : currency,
  });
const party = z.strictObject({
  name: requiredText(300),
  address: z.string().trim().max(1000, 'must be at most 1000 characters').optional(),
  signatory: z.string().trim().max(300, 'must be at most 300 characters').optional(),
});
const dateValue = z.iso.date('must be a date YYYY-MM-DD');

function columnValue(type: (typeof COLUMN_TYPES)[number]): z.ZodType {
  if (type === 'number') return z.number('must be a number');
  if (type === 'money') return z.strictObject({ amount: z.number('must be a number').min(0, 'must not be negative'), currency });
  if (type === 'date') return dateValue;
  return z.string().max(5000, 'must be at most 5000 characters');
}

/** The value a variable takes, as zod checks it. */
function valueSchema(def: VariableDef): z.ZodType {
  switch (def.type) {
    case 'text':
      return z.string('must be text').trim().max(5000, 'must be at most 5000 characters');
    case 'number':
      return z.number('must be a number').finite('must be a finite number');
    case 'money':
      return money(def);
    case 'date':
      return dateValue;
    case 'choice':
      return z.enum(def.options as [string, ...string[]], `must be one of ${(def.options ?? []).join(', ')}`);
    case 'yes_no':
      return z.boolean('must be true or false');
    case 'party':
      return party;
    case 'rows':
      return z
        .array(
          z.strictObject(Object.fromEntries((def.columns ?? []).map((c) => [c.name, columnValue(c.type).optional()]))),
          'must be a list of rows',
        )
        .max(1000, 'must have at most 1000 rows');
  }
}

/** A variable's schema for a form: its label as title, its default, required or not. */
function fieldSchema(def: VariableDef): z.ZodType {
  const base = valueSchema(def).meta({ title: def.label, ...(def.key_term ? { description: `States the key term ${def.key_term}` } : {}) });
  if (def.default !== undefined) return base.default(def.default as never);
  return def.required ? base : base.optional();
}

/** The zod object of all variables (and of the clauses' variables, merged). */
export const valuesSchema = (defs: readonly VariableDef[]) => z.strictObject(Object.fromEntries(defs.map((d) => [d.name, fieldSchema(d)])));

/** The variables as a JSON Schema (draft 2020-12), for a front end's form. */
export function variablesJsonSchema(defs: readonly VariableDef[]): Record<string, unknown> {
  return z.toJSONSchema(valuesSchema(defs), { io: 'input', unrepresentable: 'any' });
}

/** Problems with the declarations themselves (duplicate names, a default of the wrong type, a key term the type cannot state). */
export function checkDeclarations(defs: readonly VariableDef[], where: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  defs.forEach((d, i) => {
    const at = `${where}[${i}] (${d.name})`;
    if (seen.has(d.name)) problems.push(`${at}: the name is declared twice`);
    seen.add(d.name);
    if (d.type === 'choice' && !d.options) problems.push(`${at}: a choice must list its options`);
    if (d.type !== 'choice' && d.options) problems.push(`${at}: only a choice has options`);
    if (d.type === 'rows' && !d.columns) problems.push(`${at}: rows must declare their columns`);
    if (d.type !== 'rows' && d.columns) problems.push(`${at}: only rows have columns`);
    if (d.currency && d.type !== 'money') problems.push(`${at}: only money has a currency`);
    if (d.key_term && !TERMS_BY_TYPE[d.type]?.includes(d.key_term)) {
      problems.push(
        `${at}: a ${d.type} cannot state the key term ${d.key_term} (it can state: ${(TERMS_BY_TYPE[d.type] ?? []).join(', ') || 'none'})`,
      );
    }
    if (d.default !== undefined && problems.length === 0) {
      const r = valueSchema(d).safeParse(d.default);
      if (!r.success) problems.push(`${at}: default ${r.error.issues[0]?.message ?? 'is not valid'}`);
    }
  });
  return problems;
}

export type Values = Record<string, unknown>;

/** The values checked: every wrong field named, as `variables.<name>[.<field>]: <rule>`. */
export function checkValues(defs: readonly VariableDef[], input: unknown): { values: Values } | { problems: string[] } {
  const r = valuesSchema(defs).safeParse(input ?? {});
  if (r.success) return { values: r.data };
  return {
    problems: r.error.issues.map((i) => {
      const path = ['variables', ...i.path].join('.');
      if (i.code === 'unrecognized_keys')
        return `${path}: ${i.keys.map((k) => `"${k}"`).join(', ')} ${i.keys.length === 1 ? 'is' : 'are'} not a variable of the template`;
      return `${path}: ${i.message === 'Invalid input: expected nonoptional, received undefined' ? 'is required' : i.message}`;
    }),
  };
}

const amount = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const longDate = (iso: string) =>
  new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** How a value prints: money as "USD 12,000.00", a date as "1 March 2026"; yes/no stays a boolean (sections test it). */
export function printed(type: VariableType | (typeof COLUMN_TYPES)[number], value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (type === 'money') {
    const m = value as { amount: number; currency: string };
    return `${m.currency} ${amount(m.amount)}`;
  }
  if (type === 'date') return longDate(value as string);
  if (type === 'number') return (value as number).toLocaleString('en-US', { maximumFractionDigits: 6 });
  return value;
}

/** The data the document renders from: each value printed, rows column by column. */
export function renderData(defs: readonly VariableDef[], values: Values): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const d of defs) {
    const v = values[d.name];
    if (d.type === 'rows' && Array.isArray(v)) {
      data[d.name] = v.map((row: Record<string, unknown>) =>
        Object.fromEntries((d.columns ?? []).map((c) => [c.name, printed(c.type, row[c.name]) ?? ''])),
      );
    } else data[d.name] = printed(d.type, v);
  }
  return data;
}

/** The key terms the values state, each as { value as printed, normalized }; `parties` gathers every party mapped to it. */
export function termsOfValues(
  defs: readonly VariableDef[],
  values: Values,
): Partial<Record<KeyTermName, { value: string; normalized: unknown }>> {
  const out: Partial<Record<KeyTermName, { value: string; normalized: unknown }>> = {};
  for (const d of defs) {
    const v = values[d.name];
    if (!d.key_term || v === undefined || v === null) continue;
    if (d.key_term === 'parties') {
      const name = (v as { name: string }).name;
      const prev = out.parties;
      out.parties = { value: prev ? `${prev.value}; ${name}` : name, normalized: [...((prev?.normalized as string[]) ?? []), name] };
      continue;
    }
    const value = String(printed(d.type, v) === true ? 'Yes' : printed(d.type, v) === false ? 'No' : printed(d.type, v));
    const normalized =
      d.type === 'money' ? { amount: (v as { amount: number }).amount, currency: (v as { currency: string }).currency } : v;
    if (NORMALIZED[d.key_term].safeParse(normalized).success) out[d.key_term] = { value, normalized };
  }
  return out;
}
