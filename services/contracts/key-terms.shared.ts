/**
 * The key terms of a contract: their names and the shape of each (shared by the routes, the
 * extractors and the model). `normalized` is typed per key: an ISO date, a number of days, a
 * boolean, an amount with currency (or a multiple of fees), the parties' names, or a place.
 */
import { z } from 'zod';

export const KEY_TERMS = [
  'parties',
  'effective_date',
  'term_length',
  'end_date',
  'auto_renewal',
  'renewal_term',
  'non_renewal_notice_days',
  'termination_for_convenience',
  'governing_law',
  'dispute_venue',
  'payment_terms',
  'liability_cap',
] as const;
export type KeyTermName = (typeof KEY_TERMS)[number];

const isoDate = z.iso.date();
const days = z.number().int().min(0).max(36500);
const money = z.union([
  z.object({ amount: z.number().min(0), currency: z.string().regex(/^[A-Z]{3}$/) }),
  z.object({ fees_multiple: z.number().min(0), months: z.number().int().min(1).max(120) }),
]);

/** `normalized` of each key. */
export const NORMALIZED = {
  parties: z.array(z.string().min(1).max(300)).min(1).max(10),
  effective_date: isoDate,
  term_length: days,
  end_date: isoDate,
  auto_renewal: z.boolean(),
  renewal_term: days,
  non_renewal_notice_days: days,
  termination_for_convenience: z.boolean(),
  governing_law: z.string().min(1).max(200),
  dispute_venue: z.string().min(1).max(200),
  payment_terms: days,
  liability_cap: money,
} satisfies Record<KeyTermName, z.ZodType>;

export interface KeyTerm<N = unknown> {
  /** The term as the contract writes it. */
  value: string;
  normalized: N;
  /** Verbatim text of the contract that states it. */
  quote: string;
  page: number;
  confidence: number;
  /** Set by a member: a later extraction keeps it as it is. */
  confirmed: boolean;
}

export type KeyTerms = Record<KeyTermName, KeyTerm | null>;

export const emptyTerms = (): KeyTerms => Object.fromEntries(KEY_TERMS.map((k) => [k, null])) as KeyTerms;

/** A term's shape for validation (the API's and a model's answers alike). */
export const keyTermSchema = <K extends KeyTermName>(key: K) =>
  z.object({
    value: z.string().min(1).max(2000),
    /** null when a member states a term whose typed form is not given (a correction of `value` only). */
    normalized: NORMALIZED[key].nullable(),
    quote: z.string().min(1).max(4000),
    page: z.number().int().min(1),
    confidence: z.number().min(0).max(1),
    confirmed: z.boolean(),
  });
