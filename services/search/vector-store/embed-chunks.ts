/** The vectors of chunks: their own and their sentences', made by the process's embedding model. */
import type { AiPort } from '../../../platform/ai/port';
import { HASHING_MODEL, normalize } from '../../../platform/ai/embeddings';
import { embeddingText, sentenceEmbeddingText, sentencesOf, titleWords } from './chunk-text';

/** A sentence's vector and the text it was embedded from (`sentenceEmbeddingText`). */
export interface EmbeddedSentence {
  text: string;
  vector: number[];
}

/**
 * Whether chunks get a vector per sentence. The hashing fallback's do not: its chunk vector is
 * already the sum of the chunk's word features, so a sentence adds little, while it would put
 * about seven times the vectors into Elasticsearch, whose graph building bounds large ingests
 * (bench/README.md). Search skips the sentence queries then.
 */
export const embedsSentences = (ai: Pick<AiPort, 'models'>) => ai.models.embedding !== HASHING_MODEL;

/** A unit vector: the sum of `vectors`, each weighted. */
function weightedMean(vectors: ReadonlyArray<readonly number[]>, weights: readonly number[]): number[] {
  const sum = new Array<number>(vectors[0]!.length).fill(0);
  vectors.forEach((v, i) => {
    for (let d = 0; d < v.length; d++) if (v[d] !== 0) sum[d]! += weights[i]! * v[d]!;
  });
  return normalize(sum);
}

/**
 * The vectors of chunks: each chunk's own and its sentences', in one embedding call that
 * embeds every distinct text once (overlapping chunks share sentences).
 * With sentence vectors, a chunk's own vector is made from them, not by embedding its text
 * again: their mean, each weighted by its length (the model mean-pools its tokens, so a
 * chunk's vector is close to its sentences' weighted by their tokens). Each sentence is thus
 * embedded once, not once alone and once inside its chunk, which halves the model's work per
 * chunk; `npm run eval` keeps its recall (eval/README.md). A chunk with no sentence long enough
 * (a heading, short list items) is embedded as a whole (`embeddingText`).
 */
export async function embedChunks(
  ai: Pick<AiPort, 'embed' | 'models'>,
  chunks: ReadonlyArray<{ title?: string; section: string; text: string }>,
): Promise<Array<{ vector: number[]; sentences: EmbeddedSentence[] }>> {
  const perSentence = embedsSentences(ai);
  const sentences = chunks.map((c) => (perSentence ? sentencesOf(c.text).map((s) => sentenceEmbeddingText(c.section, s)) : []));
  const texts = new Map<string, number>();
  const slot = (text: string) => texts.get(text) ?? texts.set(text, texts.size).size - 1;
  const own = chunks.map((c, i) => (sentences[i]!.length ? -1 : slot(embeddingText(c))));
  const titles = chunks.map((c, i) => (sentences[i]!.length && c.title && titleWords(c.title) ? slot(titleWords(c.title)) : -1));
  const ofSentences = sentences.map((list) => list.map(slot));
  const vectors = await ai.embed([...texts.keys()], 'document');
  return chunks.map((_, i) => {
    const list = sentences[i]!;
    const mine = ofSentences[i]!.map((k) => vectors[k]!);
    if (own[i]! >= 0) return { vector: vectors[own[i]!]!, sentences: [] };
    const weights = list.map((s) => s.length);
    // The title gives a clause its context ("pilot agreement / Termination", `embeddingText`):
    // it counts as one more sentence of average length.
    const title = titles[i]! >= 0 ? [vectors[titles[i]!]!] : [];
    return {
      vector: weightedMean([...mine, ...title], [...weights, ...title.map(() => weights.reduce((a, b) => a + b, 0) / weights.length)]),
      sentences: list.map((text, j) => ({ text, vector: mine[j]! })),
    };
  });
}
