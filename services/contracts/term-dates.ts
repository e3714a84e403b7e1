/**
 * Dates a contract's terms give by arithmetic rather than by statement: the end of a term that
 * runs for a stated length from a stated start, and the last day to give notice of non-renewal.
 * Calendar arithmetic, as a reader counts: "two years from April 14, 2026" ends on April 14,
 * 2028, and "one month from January 31" on the last day of February.
 */
import type { KeyTerm, KeyTerms, NullReasons, TermSource } from './key-terms.shared';

export type DurationUnit = 'day' | 'week' | 'month' | 'year';
export interface Duration {
  n: number;
  unit: DurationUnit;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `iso` (YYYY-MM-DD) moved by `d`; a month end that the target month lacks falls on its last day. */
export function addDuration(iso: string, d: Duration, sign: 1 | -1 = 1): string {
  const [y, m, day] = iso.split('-').map(Number) as [number, number, number];
  if (d.unit === 'day' || d.unit === 'week') {
    const t = Date.UTC(y, m - 1, day) + sign * d.n * (d.unit === 'week' ? 7 : 1) * 86_400_000;
    return new Date(t).toISOString().slice(0, 10);
  }
  const months = m - 1 + sign * d.n * (d.unit === 'year' ? 12 : 1);
  const year = y + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return `${year}-${pad(month + 1)}-${pad(Math.min(day, last))}`;
}

/** The latest of ISO dates, or null for none. */
export const latestDate = (dates: readonly string[]): string | null => (dates.length ? [...dates].sort().at(-1)! : null);

/**
 * What a term's start is, as its sentence names it: the effective date, a stated commencement,
 * or the last signature. A term that names no start runs from the effective date.
 */
export type StartKind = 'effective_date' | 'commencement_date' | 'last_signature';

/** The words that tie a term to its start: "from the Commencement Date", "upon the date of the last signature". */
export function startNamedIn(text: string): StartKind | null {
  if (
    /\b(?:last|final|later)\s+(?:of\s+the\s+)?(?:signature|date\w*\s+(?:of\s+)?(?:signature|execution)|party\s+to\s+sign)|\bdate\s+(?:on\s+which\s+)?(?:it\s+is\s+)?(?:last|fully)\s+(?:signed|executed)\b|\bfully\s+executed\b|\blast\s+signed\b/i.test(
      text,
    )
  )
    return 'last_signature';
  if (/\b(?:Commencement Date|Start Date|Go-Live Date|Services Start Date)\b/.test(text)) return 'commencement_date';
  if (/\bEffective Date\b|\beffective date\b/.test(text)) return 'effective_date';
  return null;
}

/**
 * A start the text leaves to the last signature without dating it (no dated signature lines):
 * the clause that says so, and the initial term counted from it, if any. Filled in when the
 * contract was signed here (fillFromSignature).
 */
export interface AwaitingSignature {
  clause: TermSource;
  term: { duration: Duration; source: TermSource } | null;
}

/**
 * The effective date and end date of a contract whose start is its last signature, from the
 * completion of its signature request here (`signedAt`, YYYY-MM-DD); terms already found stay.
 */
export function fillFromSignature(
  terms: KeyTerms,
  reasons: NullReasons,
  awaiting: AwaitingSignature,
  signedAt: string,
): { terms: KeyTerms; reasons: NullReasons } {
  const out = { ...terms };
  const left = { ...reasons };
  const derived = (date: string, from: KeyTerm['derived_from'], sources: TermSource[], quoted: TermSource): KeyTerm => ({
    value: date,
    normalized: date,
    quote: quoted.quote,
    page: quoted.page,
    confidence: 0.9,
    confirmed: false,
    derived_from: from,
    sources,
  });
  if (!out.effective_date) {
    out.effective_date = derived(signedAt, ['signature_completed'], [awaiting.clause], awaiting.clause);
    delete left.effective_date;
  }
  if (!out.end_date && awaiting.term) {
    const end = addDuration(signedAt, awaiting.term.duration);
    out.end_date = derived(end, ['signature_completed', 'initial_term'], [awaiting.clause, awaiting.term.source], awaiting.term.source);
    delete left.end_date;
  }
  return { terms: out, reasons: left };
}
