/**
 * Approval rules as data: a policy's conditions on a contract and its key terms, and who must
 * approve. Validated with zod (a malformed rule is a 400 naming the field); matching is pure.
 */
import { z } from 'zod';
import { choice, idSchema, requiredText } from '../../platform/input';
import { ROLES, type Role } from '../../platform/security/rbac';
import { RISK_LEVELS } from '../../models/contract';
import { KEY_TERMS, type KeyTermName } from '../contracts/key-terms.shared';
import type { TermFacts } from '../contracts/contract-facts';

/** Every condition given must hold; none given, the policy applies to every contract. */
export const conditionsSchema = z.strictObject({
  types: z.array(requiredText(100), 'must be a list of contract types').min(1, 'must name at least one type').optional(),
  value_over: z.number('must be a number').min(0, 'must not be negative').optional(),
  vendor_risk_in: z.array(choice(RISK_LEVELS), 'must be a list of risk levels').min(1, 'must name at least one risk level').optional(),
  liability_cap_absent: z.literal(true, 'must be true (omit it otherwise)').optional(),
  governing_law_not_in: z.array(requiredText(200), 'must be a list of places').min(1, 'must name at least one place').optional(),
  /** The organization's standard: a term whose value differs from it (or that the contract lacks) needs approval. */
  terms_differ_from_standard: z
    .partialRecord(choice(KEY_TERMS), requiredText(500), 'must map key terms to their standard values')
    .refine((r) => Object.keys(r).length > 0, 'must name at least one key term')
    .optional(),
});

export const approversSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('role'), role: choice(ROLES).exclude(['viewer']) }),
    z.strictObject({
      kind: z.literal('members'),
      user_ids: z.array(idSchema, 'must be a list of member ids').min(1, 'must name at least one member').max(20, 'must name at most 20'),
    }),
    z.strictObject({
      kind: z.literal('any_n_of'),
      n: z.number('must be a number').int('must be a whole number').min(1, 'must be at least 1'),
      user_ids: z.array(idSchema, 'must be a list of member ids').min(1, 'must name at least one member').max(50, 'must name at most 50'),
    }),
  ],
  'must be { kind: "role", role } or { kind: "members", user_ids } or { kind: "any_n_of", n, user_ids }',
);
export type Approvers = z.infer<typeof approversSchema>;

export const policyBody = z
  .strictObject({
    name: requiredText(200),
    step: z.number('must be a number').int('must be a whole number').min(1, 'must be at least 1').max(20, 'must be at most 20').default(1),
    conditions: conditionsSchema.default({}),
    approvers: approversSchema,
    reminder_days: z
      .number('must be a number')
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(60, 'must be at most 60')
      .default(2),
    escalation_days: z
      .number('must be a number')
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(365, 'must be at most 365')
      .nullable()
      .default(null),
    escalate_to_role: choice(['admin', 'owner'] as const).default('admin'),
    active: z.boolean('must be true or false').default(true),
    /** The requester and the version's author may count as approvers (separation of duties otherwise). */
    allow_self_approval: z.boolean('must be true or false').default(false),
  })
  .superRefine((p, ctx) => {
    if (p.approvers.kind === 'any_n_of' && p.approvers.n > p.approvers.user_ids.length)
      ctx.addIssue({ code: 'custom', path: ['approvers', 'n'], message: 'must not exceed the number of user_ids' });
    if (p.approvers.kind !== 'role' && new Set(p.approvers.user_ids).size !== p.approvers.user_ids.length)
      ctx.addIssue({ code: 'custom', path: ['approvers', 'user_ids'], message: 'must not repeat a member' });
  });
export type PolicyRule = z.infer<typeof policyBody>;
export type Conditions = z.infer<typeof conditionsSchema>;

/** What the conditions read of a contract. */
export interface ContractFacts {
  type: string;
  value: number | null;
  vendor_risk: string | null;
  terms: TermFacts;
}

const plain = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? null)).toLowerCase().replace(/\s+/g, ' ').trim();

/** True when the term says the standard: its text or its normalized value, ignoring case and spacing. */
export function isStandard(terms: TermFacts, key: KeyTermName, standard: string): boolean {
  const t = terms[key];
  return !!t && (plain(t.value) === plain(standard) || plain(t.normalized) === plain(standard));
}

/** The reasons the policy applies, one per condition (all hold), or null when one does not. */
export function matchConditions(c: Conditions, f: ContractFacts): string[] | null {
  const reasons: string[] = [];
  if (c.types) {
    if (!c.types.includes(f.type)) return null;
    reasons.push(`type is ${f.type}`);
  }
  if (c.value_over !== undefined) {
    if (f.value === null || !(f.value > c.value_over)) return null;
    reasons.push(`value ${f.value} is over ${c.value_over}`);
  }
  if (c.vendor_risk_in) {
    if (!f.vendor_risk || !c.vendor_risk_in.includes(f.vendor_risk as (typeof RISK_LEVELS)[number])) return null;
    reasons.push(`vendor risk is ${f.vendor_risk}`);
  }
  if (c.liability_cap_absent) {
    if (f.terms.liability_cap) return null;
    reasons.push('no liability cap');
  }
  if (c.governing_law_not_in) {
    const law = f.terms.governing_law;
    const places = c.governing_law_not_in.map(plain);
    if (law && (places.includes(plain(law.normalized)) || places.includes(plain(law.value)))) return null;
    reasons.push(`governing law ${law ? `${law.value} is` : 'not stated, so'} not in the accepted list`);
  }
  if (c.terms_differ_from_standard) {
    const differ = (Object.entries(c.terms_differ_from_standard) as Array<[KeyTermName, string]>).filter(
      ([k, std]) => !isStandard(f.terms, k, std),
    );
    if (!differ.length) return null;
    reasons.push(`${differ.map(([k]) => k).join(', ')} differ${differ.length === 1 ? 's' : ''} from the standard`);
  }
  return reasons;
}

/** How many approvals a requirement needs. */
export const requiredCount = (a: Approvers) => (a.kind === 'role' ? 1 : a.kind === 'members' ? a.user_ids.length : a.n);

/** Whether a member may count for a requirement (a role, or named), or for its escalation to a manager role. */
export function eligible(
  a: Approvers,
  user: { id: string; role: Role },
  escalatedTo: Role | null,
  rank: (r: Role, min: Role) => boolean,
): boolean {
  if (escalatedTo && rank(user.role, escalatedTo)) return true;
  if (a.kind === 'role') return rank(user.role, a.role);
  return a.user_ids.includes(user.id);
}

/** One line per requirement for people: "role admin", "members A, B", "any 2 of 3 members". */
export function describeApprovers(a: Approvers, names: (id: string) => string = (id) => id): string {
  if (a.kind === 'role') return `a member with role ${a.role}`;
  if (a.kind === 'members') return `each of ${a.user_ids.map(names).join(', ')}`;
  return `any ${a.n} of ${a.user_ids.map(names).join(', ')}`;
}
