/**
 * The local provider's answer: whole sentences and whole clauses quoted from the retrieved
 * passages, each cited with its document and page. A clause introduced by a colon brings its
 * list items; a sentence a chunk boundary cut (no capital or opening bracket at its start, no
 * closing punctuation at its end) is never quoted. Units are ranked by the sentence encoder's
 * cosine with the question (word overlap breaks ties, and ranks alone without an encoder), and
 * the answer quotes the best one, with a second only when it scores nearly as well. A unit whose
 * very text the store already holds a vector for (a sentence embedded at ingestion) is not
 * embedded again.
 */
import type { ContextPassage } from './port';
import { stem, words } from './embeddings';

export const NOTHING_FOUND = "I could not find anything about this in the organization's contracts or documents.";

/** Passages whose units compete for the answer (the best ones, as retrieval ordered them). */
const ANSWER_PASSAGES = 5;
/** A second quote must score at least this share of the best one. */
const SECOND_QUOTE_SHARE = 0.95;

interface Unit {
  text: string;
  passage: number;
}

const MARKDOWN = /^(#{1,6})\s+/;
const ENUMERATED = /^(\(?[a-z]{1,3}\)|\(?\d{1,2}\)|[•\-–*]\s|[ivx]{1,4}\.\s|\d{1,2}\.\s(?!\d))/i;
const STARTS_WHOLE = /^["'“‘([§$0-9\p{Lu}]/u;
const ENDS_WHOLE = /(?:[.;!?]["'”’)\]]*|; (?:and|or))$/;
/** A sentence ends at . ! ? before white space and a capital, an opening bracket or a quote. */
const SENTENCE_BREAK = /(?<=[.!?]["'”’)]?)\s+(?=[\p{Lu}(“"])/u;

const level = (line: string) => MARKDOWN.exec(line)?.[1]!.length ?? 0;
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The passage's quotable units: its sentences, and each clause that ends with a colon together
 * with the list items under it (lines a level deeper, or enumerated "(a)", "1.", "•").
 */
export function quotableUnits(text: string, passage = 0): Unit[] {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const units: Unit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const body = line.replace(MARKDOWN, '');
    const sentences = body.split(SENTENCE_BREAK).map(squash).filter(Boolean);
    const last = sentences.at(-1);
    if (last?.endsWith(':')) {
      const items: string[] = [];
      const depth = level(line);
      let j = i + 1;
      for (; j < lines.length; j++) {
        const next = lines[j]!;
        const deeper = depth > 0 && level(next) > depth;
        if (!deeper && !ENUMERATED.test(next.replace(MARKDOWN, ''))) break;
        items.push(squash(next.replace(MARKDOWN, '')));
      }
      // Items running to the passage's end without a full stop: the list may go on in text not retrieved.
      const whole = items.length > 0 && (j < lines.length || /[.!?]["'”’)]*$/.test(items.at(-1)!));
      // Either way the items are done with: quoted with their clause, or not at all without it.
      sentences.pop();
      if (whole) sentences.push([last, ...items].join(' '));
      i = j - 1;
    }
    for (const s of sentences) if (STARTS_WHOLE.test(s) && ENDS_WHOLE.test(s)) units.push({ text: s, passage });
  }
  return units;
}

const overlapOf = (question: Set<string>, text: string) =>
  words(text)
    .map(stem)
    .filter((w) => question.has(w)).length;

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/**
 * The answer text: one quote per line, `"<quote>" (<document>, page <n>) [k]`, k being the
 * passage's place among the citations.
 */
export async function extractiveAnswer(
  question: string,
  context: readonly ContextPassage[],
  embed?: (texts: string[]) => Promise<number[][]>,
  stored?: (passages: number) => Promise<ReadonlyMap<string, readonly number[]>>,
): Promise<string> {
  const units = context.slice(0, ANSWER_PASSAGES).flatMap((p, i) => quotableUnits(p.text, i));
  if (!units.length) return NOTHING_FOUND;
  const terms = new Set(words(question).map(stem));
  const overlap = units.map((u) => overlapOf(terms, u.text));
  let scores = overlap.map((n, i) => n * context[units[i]!.passage]!.relevance);
  if (embed) {
    // The question is embedded while the stored vectors are fetched.
    const [known, [q]] = await Promise.all([stored?.(ANSWER_PASSAGES) ?? new Map<string, readonly number[]>(), embed([question])]);
    const missing = units.map((u) => u.text).filter((t) => !known.has(t));
    const fresh = missing.length ? await embed(missing) : [];
    let next = 0;
    const vectors = units.map((u) => known.get(u.text) ?? fresh[next++]!);
    // Cosine decides; a word of the question in the unit is worth a little, to break near-ties.
    scores = vectors.map((v, i) => dot(q!, v) + 0.01 * overlap[i]!);
  }
  const ranked = units.map((u, i) => ({ u, score: scores[i]! })).sort((a, b) => b.score - a.score || a.u.passage - b.u.passage);
  const [best, second] = ranked;
  const picked = second && second.score >= SECOND_QUOTE_SHARE * best!.score && second.u.text !== best!.u.text ? [best!, second] : [best!];
  const lines = picked.map(({ u }) => {
    const p = context[u.passage]!;
    return `"${u.text}" (${p.title}, page ${p.page}) [${u.passage + 1}]`;
  });
  return `From the organization's documents:\n${lines.join('\n')}`;
}
