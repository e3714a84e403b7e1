/** What of a chunk is embedded (its title, heading, sentences) and what the keyword ranking matches. */
import { stem, words } from '../../../platform/ai/embeddings';

/** A title as words: a file name without its extension, its dashes and underscores as spaces. */
export const titleWords = (title: string) =>
  title
    .replace(/\.[a-z0-9]{2,4}$/i, '')
    .replace(/[-_]+/g, ' ')
    .trim();

/**
 * What gets embedded for a chunk: the document's title and the section heading give it the
 * context of its clause ("pilot agreement / Termination"), which a clause's own words often
 * leave out.
 */
export const embeddingText = (c: { title?: string; section: string; text: string }) =>
  [c.title ? titleWords(c.title) : '', c.section && !c.text.startsWith(c.section) ? c.section : '', c.text].filter(Boolean).join('\n');

/** Sentences shorter than this ("(a)", "Term.") say too little to be found by. */
const MIN_SENTENCE_LENGTH = 20;

/**
 * A chunk's sentences and list items, as embedded one by one: lines, and sentences within a
 * line (a stop before a capital), without Markdown heading markers.
 */
export function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.;:!?])\s+(?=[\p{Lu}("“])/u)
    .map((s) => s.replace(/^#{1,6}\s+/, '').trim())
    .filter((s) => s.length >= MIN_SENTENCE_LENGTH);
}

/** What gets embedded for a sentence: the heading of its clause, then the sentence. */
export const sentenceEmbeddingText = (section: string, sentence: string) => (section ? `${section}\n${sentence}` : sentence);

/** Text as the keyword ranking sees it: lower-cased, stemmed words, stop words dropped. */
export const keywordTerms = (text: string) => words(text).map(stem).join(' ');
