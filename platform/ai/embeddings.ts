/**
 * The local provider's fallback when no embedding model is provisioned (platform/ai/index.ts).
 * Offline embeddings by feature hashing: word unigrams and bigrams (lightly stemmed, stop
 * words dropped) and character 4-grams of each word are hashed into EMBEDDING_DIM signed
 * buckets with sublinear term weights, then L2-normalized. Paraphrases share stems and
 * sub-word pieces, so they score high; unrelated text shares little beyond noise.
 */
import { EMBEDDING_DIM } from './port';

const STOP_WORDS = new Set(
  (
    'a an and are as at be been by for from has have in into is it its of on or that the this these those to was were will with ' +
    'shall may any all such other each which who whom than then there their them they its our we you your not no can upon'
  ).split(' '),
);

/** Crude suffix stripping: enough to join "terminate", "terminated", "termination". */
export function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ied', 'ies', 'ed', 'es', 'ly', 's', 'e']) {
    if (word.length - suffix.length >= 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

/** FNV-1a, 32 bit. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The name chunks embedded this way are recorded under. */
export const HASHING_MODEL = 'local-hashing-3072';

const WEIGHTS = { word: 1, bigram: 0.6, char: 0.35 };

export function hashEmbedding(text: string): number[] {
  const counts = new Map<string, number>();
  const add = (feature: string, w: number) => counts.set(feature, (counts.get(feature) ?? 0) + w);
  const stems = words(text).map(stem);
  stems.forEach((s, i) => {
    add(`w:${s}`, WEIGHTS.word);
    const next = stems[i + 1];
    if (next !== undefined) add(`b:${s} ${next}`, WEIGHTS.bigram);
    const padded = `<${s}>`;
    for (let j = 0; j + 4 <= padded.length; j++) add(`c:${padded.slice(j, j + 4)}`, WEIGHTS.char);
  });

  const v = new Array<number>(EMBEDDING_DIM).fill(0);
  for (const [feature, weight] of counts) {
    const h = hash(feature);
    // The sign bit halves the bias that bucket collisions add to every dot product.
    const sign = h & 0x80000000 ? -1 : 1;
    v[h % EMBEDDING_DIM]! += sign * Math.log1p(weight);
  }
  return normalize(v);
}

export function normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? v : v.map((x) => x / norm);
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
