import { expect } from 'chai';
import { substringGrams, substringQuery } from '../../../services/search/substrings';

/** What Elasticsearch does with the two: the whitespace analyzer's tokens, then a phrase or a prefix of one. */
function matches(text: string, search: string): boolean {
  const tokens = substringGrams(text).split(' ');
  const q = substringQuery('f', search);
  if ('prefix' in q) return tokens.some((t) => t.startsWith((q.prefix!.f as { value: string }).value));
  const phrase = (q.match_phrase!.f as { query: string }).query.split(' ');
  return tokens.some((_, i) => phrase.every((p, j) => tokens[i + j] === p));
}

describe('substring grams', () => {
  const texts = ['Harbour crane lease (v2.0) [draft]', 'Müller GmbH', 'a', 'ab', '%20 100%', 'tab\there', 'emoji 😀 ok', 'x-y %-'];
  it('match exactly the substrings, case-insensitively, whatever the characters', () => {
    for (const text of texts) {
      const lower = text.toLowerCase();
      const candidates = new Set<string>(['zz', 'q', '%', '%-', '-', ' ', '😀', 'ease ', 'lease x']);
      for (let i = 0; i < lower.length; i++) for (let j = i + 1; j <= Math.min(lower.length, i + 6); j++) candidates.add(lower.slice(i, j));
      for (const search of candidates) {
        expect(matches(text, search), `${JSON.stringify(text)} ∋ ${JSON.stringify(search)}`).to.equal(lower.includes(search.toLowerCase()));
        expect(matches(text, search.toUpperCase()), `upper ${search}`).to.equal(lower.includes(search.toLowerCase()));
      }
    }
  });

  it('make tokens without white space, so the analyzer keeps each gram whole', () => {
    for (const text of texts) for (const t of substringGrams(text).split(' ')) expect(t).to.match(/^\S+$/);
  });
});
