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

export function scoreTerms(results: Array<{ doc: CorpusDocument; terms: ExtractedTerms | null }>) {
  let expected = 0,
    found = 0,
    correct = 0;
  const mismatches: string[] = [];
  for (const { doc, terms } of results) {
    const keys = new Set([...Object.keys(doc.terms), ...Object.keys(terms ?? {})]);
    for (const key of keys) {
      const want = doc.terms[key];
      const got = terms?.[key] ?? null;
      if (want !== undefined) expected++;
      if (got) found++;
      if (want !== undefined && got && matches(want, got)) correct++;
      else if (want !== undefined || got)
        mismatches.push(
          `${doc.file} ${key}: expected ${JSON.stringify(want ?? null)}, got ${got ? JSON.stringify({ value: got.value, normalized: got.normalized, quote: got.quote.slice(0, QUOTE_SHOWN) }) : 'null'}`,
        );
    }
  }
  const precision = found ? correct / found : 0;
  const recall = expected ? correct / expected : 0;
  return {
    expected,
    found,
    correct,
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    mismatches,
  };
}
