/**
 * The clause library's rules (pure): what a clause is when posted (a preferred position and
 * ordered fallbacks, each with its text, variables, approval and key-term value), how a
 * position's text is filled in, and the key terms the preferred positions set as standard.
 */
import { z } from 'zod';
import { choice, idSchema, requiredText } from '../../platform/input';
import { KEY_TERMS, type KeyTermName } from '../contracts/key-terms.shared';
import { checkDeclarations, printed, variableSchema, type Values, type VariableDef } from './variables';

/** Clause types the library knows by name, with the key term each states; others may be added. */
export const KNOWN_CLAUSE_TYPES: Record<string, KeyTermName | null> = {
  liability_cap: 'liability_cap',
  governing_law: 'governing_law',
  termination_for_convenience: 'termination_for_convenience',
  payment_terms: 'payment_terms',
  auto_renewal: 'auto_renewal',
  dispute_venue: 'dispute_venue',
  confidentiality: null,
  indemnity: null,
  data_protection: null,
  warranty: null,
  assignment: null,
  force_majeure: null,
  non_solicitation: null,
  intellectual_property: null,
};

const SCALAR = ['text', 'number', 'money', 'date', 'choice', 'yes_no'] as const;
const positionBody = z.strictObject({
  text: requiredText(20_000),
  variables: z
    .array(
      variableSchema.refine(
        (v) => (SCALAR as readonly string[]).includes(v.type),
        'a clause variable is text, number, money, date, choice or yes_no',
      ),
    )
    .max(20, 'must declare at most 20 variables')
    .default([]),
  /** The value this position gives the clause's key term (e.g. "New York"): the preferred one is the organization's standard. */
  term_value: requiredText(500).optional(),
});
const fallbackBody = positionBody.extend({
  needs_approval: z.boolean('must be true or false').default(false),
  approval_policy_id: idSchema.optional(),
});

export const clauseBody = z
  .strictObject({
    type: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a clause type such as liability_cap'),
    title: requiredText(200),
    key_term: choice(KEY_TERMS).nullable().optional(),
    preferred: positionBody,
    fallbacks: z.array(fallbackBody).max(10, 'must list at most 10 fallbacks').default([]),
  })
  .superRefine((c, ctx) => {
    c.fallbacks.forEach((f, i) => {
      if (f.needs_approval && !f.approval_policy_id)
        ctx.addIssue({
          code: 'custom',
          path: ['fallbacks', i, 'approval_policy_id'],
          message: 'must name the approval policy that approves it',
        });
      if (!f.needs_approval && f.approval_policy_id)
        ctx.addIssue({
          code: 'custom',
          path: ['fallbacks', i, 'needs_approval'],
          message: 'must be true when an approval policy is named',
        });
    });
    [c.preferred, ...c.fallbacks].forEach((p, i) => {
      const at = i === 0 ? ['preferred'] : ['fallbacks', i - 1];
      for (const problem of checkDeclarations(p.variables, 'variables')) ctx.addIssue({ code: 'custom', path: at, message: problem });
      for (const name of tagsOf(p.text))
        if (!p.variables.some((v) => v.name === name))
          ctx.addIssue({ code: 'custom', path: [...at, 'text'], message: `{{${name}}} names no variable of the position` });
    });
  });
export type ClauseBody = z.infer<typeof clauseBody>;

/** A position as stored: position 0 preferred. */
export interface Position {
  text: string;
  variables: VariableDef[];
  needs_approval: boolean;
  approval_policy_id: string | null;
  term_value: string | null;
}

export const positionsOf = (c: ClauseBody): Position[] => [
  { ...c.preferred, needs_approval: false, approval_policy_id: null, term_value: c.preferred.term_value ?? null },
  ...c.fallbacks.map((f) => ({ ...f, approval_policy_id: f.approval_policy_id ?? null, term_value: f.term_value ?? null })),
];

const TAG = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** The names a position's text tags; a malformed tag reads as its raw text, which names no variable. */
export const tagsOf = (text: string) => [...text.matchAll(TAG)].map((m) => m[1]!);

/** The position's text with its variables' values printed in (an empty string for one not given). */
export function fillPosition(p: Pick<Position, 'text' | 'variables'>, values: Values): string {
  const byName = new Map(p.variables.map((v) => [v.name, v]));
  return p.text.replace(TAG, (_m, name: string) => {
    const def = byName.get(name);
    const v = def ? printed(def.type, values[name]) : undefined;
    if (typeof v === 'boolean') return v ? 'Yes' : 'No';
    return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
  });
}

/** The library text of a position for comparison: tags read as their labels' placeholders. */
export const libraryText = (p: Pick<Position, 'text'>) => p.text.replace(TAG, ' ');
