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

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a (32 bit) state `h` continued over the UTF-16 units of `s`: a feature is hashed as its parts are walked, never built as a string. */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/** The hash state after each feature's prefix (`w:` word, `b:` bigram, `c:` character 4-gram). */
const PREFIX = { word: fnv(FNV_OFFSET, 'w:'), bigram: fnv(FNV_OFFSET, 'b:'), char: fnv(FNV_OFFSET, 'c:') };
const SPACE = 0x20;
const OPEN = 0x3c; // '<' before a word's first character
const CLOSE = 0x3e; // '>' after its last

/** The name chunks embedded this way are recorded under. */
export const HASHING_MODEL = 'local-hashing-3072';

const WEIGHTS = { word: 1, bigram: 0.6, char: 0.35 };

/**
 * One text's feature weights keyed by feature hash, in first-seen order (the order the
 * buckets are summed in, so every vector is the same to the last bit as when features were
 * keyed by their text). Open addressing in typed arrays, reused for every text: no
 * allocation per feature. Two different features with the same 32-bit hash now share one
 * weight, log1p(a + b) instead of log1p(a) + log1p(b) in the bucket they shared anyway
 * (about once in 8,600 texts of 1,000 features).
 */
class FeatureWeights {
  private keys = new Uint32Array(2048);
  private weights = new Float64Array(2048);
  /** The text a slot was last filled for: no clearing between texts. */
  private filledFor = new Uint32Array(2048);
  private text = 0;
  /** Slots in first-seen order. */
  order = new Uint32Array(1024);
  size = 0;

  reset(): void {
    this.size = 0;
    if (++this.text === 0xffffffff) {
      this.filledFor.fill(0);
      this.text = 1;
    }
  }

  add(hash: number, weight: number): void {
    const mask = this.keys.length - 1;
    for (let slot = (hash ^ (hash >>> 16)) & mask; ; slot = (slot + 1) & mask) {
      if (this.filledFor[slot] !== this.text) {
        this.filledFor[slot] = this.text;
        this.keys[slot] = hash;
        this.weights[slot] = weight;
        this.order[this.size++] = slot;
        if (this.size * 2 >= this.keys.length) this.grow();
        return;
      }
      if (this.keys[slot] === hash) {
        this.weights[slot]! += weight;
        return;
      }
    }
  }

  key = (i: number) => this.keys[this.order[i]!]!;
  weight = (i: number) => this.weights[this.order[i]!]!;

  /** Twice the slots, the entries re-placed in their first-seen order. */
  private grow(): void {
    const entries = Array.from({ length: this.size }, (_, i) => [this.key(i), this.weight(i)] as const);
    const slots = this.keys.length * 2;
    this.keys = new Uint32Array(slots);
    this.weights = new Float64Array(slots);
    this.filledFor = new Uint32Array(slots);
    this.order = new Uint32Array(slots / 2);
    this.text = 1;
    this.size = 0;
    for (const [hash, weight] of entries) this.add(hash, weight);
  }
}

const features = new FeatureWeights();

export function hashEmbedding(text: string): number[] {
  features.reset();
  const stems = words(text).map(stem);
  for (let i = 0; i < stems.length; i++) {
    const s = stems[i]!;
    features.add(fnv(PREFIX.word, s) >>> 0, WEIGHTS.word);
    const next = stems[i + 1];
    if (next !== undefined) features.add(fnv(Math.imul(fnv(PREFIX.bigram, s) ^ SPACE, FNV_PRIME), next) >>> 0, WEIGHTS.bigram);
    // The 4-grams of `<stem>`: position p of the padded word is '<', the stem's p-1th unit, or '>'.
    const last = s.length + 1;
    for (let j = 0; j + 4 <= last + 1; j++) {
      let h = PREFIX.char;
      for (let p = j; p < j + 4; p++) h = Math.imul(h ^ (p === 0 ? OPEN : p === last ? CLOSE : s.charCodeAt(p - 1)), FNV_PRIME);
      features.add(h >>> 0, WEIGHTS.char);
    }
  }

  const v = new Float64Array(EMBEDDING_DIM);
  for (let i = 0; i < features.size; i++) {
    const h = features.key(i);
    // The sign bit halves the bias that bucket collisions add to every dot product.
    v[h % EMBEDDING_DIM]! += (h & 0x80000000 ? -1 : 1) * Math.log1p(features.weight(i));
  }
  let sum = 0;
  for (let i = 0; i < EMBEDDING_DIM; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  const out = new Array<number>(EMBEDDING_DIM);
  for (let i = 0; i < EMBEDDING_DIM; i++) out[i] = norm === 0 ? 0 : v[i]! / norm;
  return out;
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
