/**
 * The local AI provider: deterministic and offline. It has no generative model, so drafting,
 * analysis and structured extraction answer null and each feature's rules answer instead;
 * answers are extractive (whole sentences and clauses of the retrieved passages, each cited:
 * platform/ai/extractive-answer.ts). Embeddings come from a local sentence
 * encoder, zero-padded to EMBEDDING_DIM (cosine similarity is unchanged by padding, so
 * the relevance floor keeps its meaning), or are feature-hashed when there is none.
 */
import { setImmediate } from 'node:timers/promises';
import { EMBEDDING_DIM, type AiPort } from './port';
import { hashEmbedding, HASHING_MODEL, normalize } from './embeddings';
import type { SentenceEncoder } from './sentence-encoder';
import { extractiveAnswer } from './extractive-answer';

/** A model's vector as EMBEDDING_DIM unit-length values: zeros after its own dimensions. */
export function padded(vector: Float32Array): number[] {
  const out = new Array<number>(EMBEDDING_DIM).fill(0);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]!;
  return normalize(out);
}

export function createLocalAi(encoder: SentenceEncoder | null = null): AiPort {
  const ai: AiPort = {
    provider: 'local',
    models: {
      primary: 'local-extractive',
      mini: 'local-extractive',
      premium: 'local-extractive',
      fallback: 'local-extractive',
      embedding: encoder?.name ?? HASHING_MODEL,
    },

    // No generative model offline: drafting and analysis stay with the features' rules (services/clauses/clause-rules.ts and its kin).
    draftContract: () => Promise.resolve(null),
    analyzeContract: () => Promise.resolve(null),
    assessVendor: () => Promise.resolve(null),
    analyzeDocument: () => Promise.resolve(null),

    async *generateAnswer({ question, context, signal, storedVectors }) {
      // Units are ranked by the sentence encoder when there is one (hashed vectors rank no better than shared words).
      // Stored vectors stand in for its own only when its model made them; the encoder embeds
      // a document's text and a query's alike, so a sentence's stored vector is the one it would make.
      const stored =
        storedVectors &&
        (async (passages: number) => {
          const { model, byText } = await storedVectors(passages);
          return model === ai.models.embedding ? byText : new Map<string, readonly number[]>();
        });
      const answer = await extractiveAnswer(question, context, encoder ? (texts) => ai.embed(texts, 'query') : undefined, stored);
      // Word-sized pieces, so streaming clients see the same shape as from a model; each
      // waits a turn of the event loop so a long answer never blocks other requests.
      for (const piece of answer.match(/\S+\s*/g) ?? []) {
        await setImmediate();
        if (signal?.aborted) return;
        yield piece;
      }
    },

    // No generative model offline: extraction stays with each feature's rules.
    extractStructured() {
      return Promise.resolve(null);
    },

    async embed(texts) {
      if (!encoder) return texts.map(hashEmbedding);
      return (await encoder.encode(texts)).map(padded);
    },
  };
  return ai;
}
