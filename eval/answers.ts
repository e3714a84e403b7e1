/**
 * What makes an answer whole: every quote is a line `"<quote>" (<document>, page <n>) [k]`,
 * verbatim from the k-th retrieved passage (that passage's document and page), starting
 * where a sentence or list item starts and ending where one ends.
 */
import type { Passage } from '../services/search/retrieval';
import { comparable } from './corpus';

export const QUOTE_LINE = /^"(.*)" \((.+), page (\d+)\) \[(\d+)\]$/;

/** Text as read: Markdown heading markers (DOCX headings) dropped, quotes and spaces made plain. */
export const plain = (s: string) => comparable(s.replace(/^#{1,6}\s+/gm, ''));

const STARTS_WHOLE = /^["'“‘([§$0-9\p{Lu}]/u;
const ENDS_WHOLE = /(?:[.;:!?]["'”’)\]]*|; (?:and|or))$/;

export function checkAnswer(content: string, passages: readonly Passage[], expected: string) {
  const problems: string[] = [];
  const quotes = content
    .split('\n')
    .map((line) => QUOTE_LINE.exec(line.trim()))
    .filter((m) => m !== null);
  if (!quotes.length && passages.length) problems.push('no quote');
  for (const [, quote, title, page, cite] of quotes) {
    const passage = passages[Number(cite) - 1];
    if (!passage) {
      problems.push(`[${cite}] cites no passage`);
      continue;
    }
    if (passage.title !== title || passage.page !== Number(page)) problems.push(`[${cite}] names ${title} p.${page}, not its passage`);
    if (!plain(passage.text).includes(plain(quote!))) problems.push(`[${cite}] not verbatim`);
    if (!STARTS_WHOLE.test(quote!)) problems.push(`[${cite}] starts mid-sentence: "${quote!.slice(0, 30)}"`);
    if (!ENDS_WHOLE.test(quote!)) problems.push(`[${cite}] ends mid-sentence: "${quote!.slice(-30)}"`);
  }
  return { complete: problems.length === 0, problems, containsExpected: plain(content).includes(expected) };
}
