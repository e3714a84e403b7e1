/**
 * Retrieval for the chat, steps 1–5 of the answering procedure in docs/reference/service-interface.md:
 * (1) embed the question, expanded with the clause names it points at
 * (services/search/expand-query.ts); (2) kNN over the three collections, inside the caller's
 * organization, fused with a keyword (BM25) ranking of the same chunks; (3) drop hits
 * below 0.35 cosine (the store drops them already; the check here keeps the rule
 * independent of the store); (4) merge overlapping chunks of one source; (5) keep
 * passages, best first, until the context reaches 28,000 characters. Step 6
 * (generation) is the chat route's.
 */
import type { AiPort, ContextPassage, StoredVectors } from '../../platform/ai/port';
import type { Logger } from '../../platform/logger';
import { MIN_RELEVANCE, searchChunks, storedSentenceVectors, type SearchHit, type VectorStore } from './vector-store';
import { expandQuery } from './expand-query';

export const MAX_CONTEXT_CHARS = 28_000;
/** Nearest chunks fetched per question across the three collections. */
export const RETRIEVAL_K = 40;

export interface Passage extends ContextPassage {
  sourceId: string;
  collection: SearchHit['collection'];
  startOffset: number;
  endOffset: number;
  /** The best fused rank score of its chunks: passages are ordered by it. */
  score: number;
  /** Its chunks' places in the source. */
  chunkIndexes: number[];
}

/**
 * Step 4: chunks of one source whose offset ranges overlap (consecutive chunks share
 * their overlap) become one passage with the union of their text and the best relevance
 * and score. Best score first.
 */
export function mergeOverlapping(hits: readonly SearchHit[]): Passage[] {
  const bySource = new Map<string, SearchHit[]>();
  for (const h of hits) {
    const key = `${h.collection}\u0000${h.sourceId}`;
    bySource.set(key, [...(bySource.get(key) ?? []), h]);
  }
  const passages: Passage[] = [];
  for (const group of bySource.values()) {
    group.sort((a, b) => a.startOffset - b.startOffset);
    let current: Passage | undefined;
    for (const h of group) {
      if (current && h.startOffset < current.endOffset) {
        if (h.endOffset > current.endOffset) {
          current.text += h.text.slice(current.endOffset - h.startOffset);
          current.endOffset = h.endOffset;
        }
        current.relevance = Math.max(current.relevance, h.relevance);
        current.score = Math.max(current.score, h.score);
        current.chunkIndexes.push(h.chunkIndex);
        continue;
      }
      if (current) passages.push(current);
      current = {
        title: h.title,
        page: h.page,
        section: h.section,
        text: h.text,
        relevance: h.relevance,
        sourceId: h.sourceId,
        collection: h.collection,
        startOffset: h.startOffset,
        endOffset: h.endOffset,
        score: h.score,
        chunkIndexes: [h.chunkIndex],
      };
    }
    if (current) passages.push(current);
  }
  return passages.sort((a, b) => b.score - a.score || b.relevance - a.relevance);
}

/**
 * Step 5: best passages first while their text fits in `maxChars` in total; the first
 * passage that does not fit is cut to the room left, and nothing follows it.
 */
export function buildContext(passages: readonly Passage[], maxChars = MAX_CONTEXT_CHARS): Passage[] {
  const out: Passage[] = [];
  let used = 0;
  for (const p of passages) {
    const room = maxChars - used;
    if (room <= 0) break;
    if (p.text.length <= room) {
      out.push(p);
      used += p.text.length;
      continue;
    }
    out.push({ ...p, text: p.text.slice(0, room) });
    break;
  }
  return out;
}

export const contextChars = (passages: readonly ContextPassage[]) => passages.reduce((n, p) => n + p.text.length, 0);

export const RETRIEVAL_OPTIONS = { k: RETRIEVAL_K, minRelevance: MIN_RELEVANCE };

/** Step 1: the words for the keyword ranking and the vector of the expanded question. */
export async function retrievalQuery(ai: AiPort, question: string): Promise<{ text: string; vector: number[] }> {
  const query = expandQuery(question);
  const [vector] = await ai.embed([query.embedding], 'query');
  return { text: query.keywords, vector: vector! };
}

/** Steps 3–5 on the hits of step 2. */
export const passagesOf = (hits: readonly SearchHit[]): Passage[] =>
  buildContext(mergeOverlapping(hits.filter((h) => h.relevance >= MIN_RELEVANCE)));

/** Steps 1–5 for one question of one organization. */
export async function retrieve(store: VectorStore & { ai: AiPort }, organizationId: string, question: string): Promise<Passage[]> {
  return passagesOf(await searchChunks(store, organizationId, await retrievalQuery(store.ai, question), RETRIEVAL_OPTIONS));
}

/**
 * For the answer: the sentence vectors stored with the chunks of the first passages (the
 * model's; `storedSentenceVectors`), fetched only when the answerer asks, so it need not
 * embed those sentences again. A failure costs only speed: the answerer embeds them then.
 */
export function passageVectors(
  store: VectorStore & { ai: Pick<AiPort, 'models'>; logger: Logger },
  passages: readonly Passage[],
): (count: number) => Promise<StoredVectors> {
  return async (count) => {
    const chunks = passages
      .slice(0, count)
      .flatMap((p) => p.chunkIndexes.map((chunkIndex) => ({ collection: p.collection, sourceId: p.sourceId, chunkIndex })));
    const byText = await storedSentenceVectors(store, chunks).catch((err: unknown) => {
      store.logger.warn({ err }, 'stored sentence vectors unavailable; the answer embeds its sentences');
      return new Map<string, number[]>();
    });
    return { model: store.ai.models.embedding, byText };
  };
}
