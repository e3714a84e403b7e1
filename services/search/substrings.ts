/**
 * The contract list's substring search (`GET /contracts?search=`) as an index lookup. A
 * leading wildcard over a keyword field walks the terms of every organization in the shared
 * index; here the title and counterparty are indexed as the sequence of their lower-cased
 * 3-grams instead (made here: the Elasticsearch distribution we run has no n-gram tokenizer
 * and no `wildcard` field type), so a search of 3 or more characters is the phrase of its
 * own 3-grams (consecutive grams at consecutive positions: exactly a substring), and a
 * shorter one is a prefix of some gram (the text ends in padding so that its last
 * characters start a gram too).
 */
import type { estypes } from '@elastic/elasticsearch';

const GRAM = 3;
/** A gram's unit after the text's end: no character encodes to it. */
const PAD = '%-';

/**
 * One UTF-16 unit as a token character: itself, or `%` and 4 hex digits for what would split
 * a token (white space, controls), `%` itself and surrogates. Prefix-free, so a prefix of
 * encoded units is the encoding of a prefix.
 */
function unit(ch: string): string {
  const code = ch.charCodeAt(0);
  const escaped = code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff) || ch === '%' || /\s/.test(ch);
  return escaped ? `%${code.toString(16).padStart(4, '0')}` : ch;
}

const units = (text: string) => Array.from({ length: text.length }, (_, i) => unit(text[i]!));
const gramsOf = (u: string[]) => Array.from({ length: u.length - GRAM + 1 }, (_, i) => u.slice(i, i + GRAM).join('')).join(' ');

/** The indexed form of a text: its lower-cased 3-grams in order, separated by spaces. */
export function substringGrams(text: string): string {
  return gramsOf([...units(text.toLowerCase()), ...Array<string>(GRAM - 1).fill(PAD)]);
}

/** Matches documents whose `field` (indexed with substringGrams) contains `text`, case-insensitively. */
export function substringQuery(field: string, text: string): estypes.QueryDslQueryContainer {
  const u = units(text.toLowerCase());
  if (u.length < GRAM) return { prefix: { [field]: { value: u.join('') } } };
  return { match_phrase: { [field]: { query: gramsOf(u) } } };
}
