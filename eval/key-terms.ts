/** Key-term precision and recall against the labels of eval/corpus.json. */
import type { CorpusDocument } from './corpus';
import { comparable } from './corpus';

export interface ExtractedTerm {
  value: string;
  normalized: unknown;
  quote: string;
  page: number;
  confidence: number;
  confirmed: boolean;
  derived_from?: string[];
  sources?: Array<{ from: string; quote: string; page: number }>;
}
export type ExtractedTerms = Record<string, ExtractedTerm | null>;

const lower = (s: string) => comparable(s).toLowerCase();
/** Month lengths differ: a duration given in months may be counted a few days either way. */
const DAY_TOLERANCE = 3;
/** Enough of a wrong term's quote to see where it came from. */
const QUOTE_SHOWN = 200;

function matches(expected: CorpusDocument['terms'][string], got: ExtractedTerm): boolean {
  if (Array.isArray(expected)) {
    const names = lower([got.value, ...(Array.isArray(got.normalized) ? got.normalized.map(String) : [])].join(' | '));
    return expected.every((name) => names.includes(lower(name)));
  }
  if (typeof expected === 'boolean') return got.normalized === expected;
  if (typeof expected === 'number') return typeof got.normalized === 'number' && Math.abs(got.normalized - expected) <= DAY_TOLERANCE;
  if (/^\d{4}-\d{2}-\d{2}$/.test(expected)) return got.normalized === expected;
  return lower(got.value).includes(lower(expected));
}

/** A term is cited when it has a quote and a page, and a derived term a quote for each source. */
const cited = (t: ExtractedTerm) =>
  t.quote.trim().length > 0 && t.page >= 1 && (!t.derived_from || (t.sources ?? []).every((s) => s.quote.trim().length > 0));

interface Counts {
  expected: number;
  found: number;
  correct: number;
}
const ratios = ({ expected, found, correct }: Counts) => {
  const precision = found ? correct / found : 0;
  const recall = expected ? correct / expected : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
};

export function scoreTerms(results: Array<{ doc: CorpusDocument; terms: ExtractedTerms | null }>) {
  let expected = 0,
    found = 0,
    correct = 0,
    uncited = 0;
  const perTerm = new Map<string, Counts>();
  const count = (key: string) => perTerm.get(key) ?? perTerm.set(key, { expected: 0, found: 0, correct: 0 }).get(key)!;
  const mismatches: string[] = [];
  for (const { doc, terms } of results) {
    const keys = new Set([...Object.keys(doc.terms), ...Object.keys(terms ?? {})]);
    for (const key of keys) {
      const want = doc.terms[key];
      const got = terms?.[key] ?? null;
      const c = count(key);
      if (want !== undefined) {
        expected++;
        c.expected++;
      }
      if (got) {
        found++;
        c.found++;
      }
      if (got && !cited(got)) uncited++;
      if (want !== undefined && got && matches(want, got)) {
        correct++;
        c.correct++;
      } else if (want !== undefined || got)
        mismatches.push(
          `${doc.file} ${key}: expected ${JSON.stringify(want ?? null)}, got ${got ? JSON.stringify({ value: got.value, normalized: got.normalized, quote: got.quote.slice(0, QUOTE_SHOWN) }) : 'null'}`,
        );
    }
  }
  return {
    expected,
    found,
    correct,
    ...ratios({ expected, found, correct }),
    /** Terms returned without a quote (or a derived one without a quote per source). */
    uncited,
    perTerm: [...perTerm.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, c]) => ({ key, ...c, ...ratios(c) })),
    mismatches,
  };
}

const f3 = (n: number) => n.toFixed(3);

/** The per-term table of a set: precision, recall and F1 of each key, then all keys together. */
export function perTermTable(name: string, t: ReturnType<typeof scoreTerms>): string {
  const rows = t.perTerm.map(
    (r) =>
      `    ${r.key.padEnd(28)} ${String(r.expected).padStart(3)} ${String(r.found).padStart(5)} ${String(r.correct).padStart(7)}   ${f3(r.precision)}  ${f3(r.recall)}  ${f3(r.f1)}`,
  );
  return [
    `  ${name}: precision ${f3(t.precision)}   recall ${f3(t.recall)}   F1 ${f3(t.f1)}   (${t.correct} correct of ${t.found} found, ${t.expected} labelled; ${t.uncited} without a citation)`,
    `    ${'term'.padEnd(28)} lab found correct   P      R      F1`,
    ...rows,
  ].join('\n');
}
