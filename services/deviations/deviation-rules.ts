/**
 * Where a contract departs from the clause library (pure; embeddings come in as a function).
 * The text is cut into paragraphs with their page and number on the page; per clause type of
 * the library, the paragraph closest to any of its positions (cosine of sentence embeddings:
 * the local model, all-MiniLM-L6-v2, by default) is the clause found, unless none comes within
 * FOUND_SIMILARITY: then the contract lacks it. The clause found is:
 * - a position (standard for 0, fallback n) when its text is that position's, word for word
 *   once spacing, quotes and the position's variables are set aside, or nearly so
 *   (SAME_SIMILARITY), and the key term stored for the contract (if any) agrees with the
 *   position's value (a governing law clause word for word the library's but for another place
 *   is not the standard);
 * - else non-standard, beside the closest position's text and the words that differ.
 * Thresholds were set on the labelled set of eval/deviations.ts (164 cases from the corpus).
 */
import { diffWords } from 'diff';
import type { Page } from '../search/chunking';
import { libraryText, type Position } from '../clause-library/clause-positions';

export const FOUND_SIMILARITY = 0.75;
export const SAME_SIMILARITY = 0.95;
/** Paragraphs longer than this are also looked at sentence by sentence (a clause inside a long section). */
const LONG_PARAGRAPH = 700;

export interface Paragraph {
  page: number;
  /** 1-based on its page. */
  paragraph: number;
  text: string;
}

export interface LibraryClause {
  type: string;
  title: string;
  version: number;
  key_term: string | null;
  positions: Array<Pick<Position, 'text' | 'term_value'>>;
}

/** The key terms the contract states, as the stored terms read (value and normalized, as text). */
export type StatedTerms = Partial<Record<string, { value: string; normalized: unknown } | null>>;

export type Verdict = 'standard' | 'fallback' | 'non_standard';

export interface ClauseDeviation {
  type: string;
  title: string;
  status: Verdict;
  /** 0 for standard, n for the n-th fallback, null for non-standard. */
  position: number | null;
  similarity: number;
  found: Paragraph;
  closest: { position: number; text: string };
  /** The words of the closest position the contract lacks (delete) or adds (insert); empty when it matches. */
  differences: Array<{ op: 'insert' | 'delete'; text: string }>;
  /** The clause's key term where the contract's terms and the position's value disagree. */
  key_term: { term: string; contract: string; position: string } | null;
}

export interface DeviationReport {
  clauses: ClauseDeviation[];
  missing: Array<{ type: string; title: string }>;
}

const SENTENCE_END = /[.;:!?]["'”’)]?$/;

/** The text's paragraphs: lines joined until one ends a sentence or a blank line parts them (PDF lines wrap). */
export function paragraphsOf(pages: readonly Page[]): Paragraph[] {
  const out: Paragraph[] = [];
  for (const { page, text } of pages) {
    let n = 0;
    let current = '';
    const flush = () => {
      const t = current.replace(/\s+/g, ' ').trim();
      if (t) out.push({ page, paragraph: ++n, text: t });
      current = '';
    };
    for (const line of text.split(/\r?\n/)) {
      if (!line.trim()) {
        flush();
        continue;
      }
      current += ` ${line.trim()}`;
      if (SENTENCE_END.test(line.trim()) || /^#/.test(line.trim())) flush();
    }
    flush();
  }
  return out;
}

/** Candidates: each paragraph, and the sentences of long ones (with the paragraph's place). */
export function candidatesOf(paragraphs: readonly Paragraph[]): Paragraph[] {
  const out: Paragraph[] = [];
  for (const p of paragraphs) {
    out.push(p);
    if (p.text.length > LONG_PARAGRAPH)
      for (const s of p.text.match(/[^.!?]+[.!?]+["'”’)]?/g) ?? []) if (s.trim().length > 40) out.push({ ...p, text: s.trim() });
  }
  return out;
}

const plain = (s: string) => s.normalize('NFKC').replace(/[“”"]/g, '"').replace(/[‘’']/g, "'").replace(/\s+/g, ' ').trim().toLowerCase();

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the text is the position's, word for word once its variables are any short text. */
export function matchesPosition(text: string, position: Pick<Position, 'text'>): boolean {
  const parts = plain(position.text).split(/\{\{[^{}]*\}\}/);
  const re = new RegExp(`^${parts.map(escapeRe).join('.{1,120}?')}$`);
  return re.test(plain(text));
}

const cosine = (a: readonly number[], b: readonly number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

function differencesOf(library: string, found: string): ClauseDeviation['differences'] {
  return diffWords(libraryText({ text: library }).replace(/\s+/g, ' ').trim(), found)
    .filter((c) => c.added || c.removed)
    .map((c) => ({ op: c.added ? ('insert' as const) : ('delete' as const), text: c.value.trim() }))
    .filter((c) => c.text);
}

const said = (t: { value: string; normalized: unknown }) => [
  plain(t.value),
  plain(typeof t.normalized === 'string' ? t.normalized : JSON.stringify(t.normalized ?? '')),
];

/** The report, given every candidate's vector and every position's (unit vectors, same model). */
export function judgeDeviations(input: {
  candidates: readonly Paragraph[];
  candidateVectors: readonly (readonly number[])[];
  library: readonly LibraryClause[];
  positionVectors: readonly (readonly (readonly number[])[])[];
  terms: StatedTerms;
}): DeviationReport {
  const { candidates, candidateVectors, library, positionVectors, terms } = input;
  const report: DeviationReport = { clauses: [], missing: [] };
  library.forEach((clause, ci) => {
    let best = -1;
    let bestSim = -Infinity;
    let bestPos = 0;
    candidateVectors.forEach((v, i) => {
      positionVectors[ci]!.forEach((pv, pi) => {
        const sim = cosine(v, pv);
        if (sim > bestSim) [best, bestSim, bestPos] = [i, sim, pi];
      });
    });
    if (best < 0 || bestSim < FOUND_SIMILARITY) {
      report.missing.push({ type: clause.type, title: clause.title });
      return;
    }
    const found = candidates[best]!;
    const sims = positionVectors[ci]!.map((pv) => cosine(candidateVectors[best]!, pv));
    const exact = clause.positions.findIndex((p) => matchesPosition(found.text, p));
    const closest = exact >= 0 ? exact : bestPos;
    const position = clause.positions[closest]!;
    const stated = clause.key_term ? terms[clause.key_term] : null;
    const disagree =
      stated && position.term_value && !said(stated).includes(plain(position.term_value))
        ? { term: clause.key_term!, contract: stated.value, position: position.term_value }
        : null;
    const same = (exact >= 0 || sims[closest]! >= SAME_SIMILARITY) && !disagree;
    const status: Verdict = !same ? 'non_standard' : closest === 0 ? 'standard' : 'fallback';
    report.clauses.push({
      type: clause.type,
      title: clause.title,
      status,
      position: same ? closest : null,
      similarity: Math.round(sims[closest]! * 1000) / 1000,
      found,
      closest: { position: closest, text: position.text },
      differences: exact >= 0 ? [] : differencesOf(position.text, found.text),
      key_term: disagree,
    });
  });
  return report;
}
