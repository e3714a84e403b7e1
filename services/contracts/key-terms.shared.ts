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

/**
 * What a derived term was computed from: a stated expiry, the effective date, a stated
 * commencement, the last signature (its date in the text, or the completion of the contract's
 * signature request here), the initial term, the renewal clause, the non-renewal notice.
 */
export const DERIVATION_SOURCES = [
  'expiry_date',
  'effective_date',
  'commencement_date',
  'last_signature',
  'signature_completed',
  'initial_term',
  'renewal_clause',
  'non_renewal_notice',
] as const;
export type DerivationSource = (typeof DERIVATION_SOURCES)[number];

/** One statement a derived term rests on, verbatim, with its page. */
export interface TermSource {
  from: DerivationSource;
  quote: string;
  page: number;
}

export interface KeyTerm<N = unknown> {
  /** The term as the contract writes it. */
  value: string;
  normalized: N;
  /** Verbatim text of the contract that states it (for a derived term, the term it is counted by; `sources` has every quote). */
  quote: string;
  page: number;
  confidence: number;
  /** Set by a member: a later extraction keeps it as it is. */
  confirmed: boolean;
  /** A term computed from others (an end date from a start and a term): which rule applied, in order. */
  derived_from?: DerivationSource[];
  /** The statements a derived term rests on, each quoted. */
  sources?: TermSource[];
  /** `template`: stated by a variable of the template the contract was drafted from, not extracted. */
  origin?: 'template';
}

/** Why a key (or the opt-out deadline) is null though the text speaks of it ("the term runs until the services are complete"). */
export type NullReasons = Partial<Record<KeyTermName | 'opt_out_deadline', string>>;

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
    derived_from: z.array(z.enum(DERIVATION_SOURCES)).optional().meta({
      description: 'Present when the term is computed from others, e.g. ["effective_date", "initial_term"]: the rule that applied',
    }),
    sources: z
      .array(z.object({ from: z.enum(DERIVATION_SOURCES), quote: z.string(), page: z.number().int().min(1) }))
      .optional()
      .meta({ description: 'For a derived term, each statement it rests on, quoted verbatim with its page' }),
    origin: z
      .enum(['template'])
      .optional()
      .meta({ description: 'Present when a variable of the template the contract was drafted from states the term' }),
  });
