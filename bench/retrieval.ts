/**
 * Retrieval at 1,000 and 10,000 indexed chunks of one organization (plus 2,000 of another
 * one, which the organization filter must skip), on the real engines:
 * - retrieval time: `retrieve()` (embed the question, kNN over the three collections,
 *   merge, build the context) against the raw kNN request it makes, sent straight to
 *   Elasticsearch over HTTP (same indices, same organization filter, k, candidates and
 *   similarity floor, the question's vector computed beforehand);
 * - question to first chunk: `POST /chat/send` (SSE) through the full API until the first
 *   `chunk` event, against the same raw kNN.
 * Questions are interleaved (raw, retrieve, chat) so load drifts hit all three alike.
 *   source .stack/stack.env && node --import tsx bench/retrieval.ts [questions per size] [chunk counts...]
 */
import { request } from 'undici';
import { RETRIEVAL_K, retrieve } from '../services/search/retrieval';
import { COLLECTIONS, MIN_RELEVANCE, indexChunks, indexName, refreshCollections, type ChunkRecord } from '../services/search/vector-store';
import { writeResult, type BenchRow } from './report';
import { closeBench, latencies, listenApi, openBench, percentile, registerUser, runBench, signedMs, type Bench } from './support';
import { WORDS, sentence } from './fixtures';

const QUESTIONS = Number(process.argv[2] ?? 40);
const SIZES = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [1_000, 10_000];
const OTHER_ORG_CHUNKS = 2_000;
const TARGET_MS = 20;

/** Adds chunks `from`…`to - 1` of an organization, spread over the three collections. */
async function fill(b: Bench, organizationId: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 500) {
    const texts = Array.from(
      { length: Math.min(500, to - i) },
      (_, j) => `${sentence(i + j)} ${sentence(i + j + 7)} ${sentence(i + j + 13)}`,
    );
    const vectors = await b.services.ai.embed(texts, 'document');
    const records: ChunkRecord[] = texts.map((text, j) => {
      const n = i + j;
      return {
        organizationId,
        sourceType: 'document',
        sourceId: `bench-src-${organizationId}-${Math.floor(n / 50)}`,
        title: `Bench document ${Math.floor(n / 50)}`,
        page: 1 + (n % 50),
        section: '',
        startOffset: n * 10_000,
        endOffset: n * 10_000 + text.length,
        text,
        chunkIndex: n,
        vector: vectors[j]!,
      };
    });
    await indexChunks(b.services, COLLECTIONS[Math.floor(i / 500) % COLLECTIONS.length]!, records);
  }
}

/** The kNN request `searchChunks` makes, sent as is to Elasticsearch's HTTP API. */
async function rawKnn(b: Bench, organizationId: string, vector: number[]): Promise<number> {
  const index = COLLECTIONS.map((c) => indexName(b.services, c)).join(',');
  const body = JSON.stringify({
    size: RETRIEVAL_K,
    knn: {
      field: 'embedding',
      query_vector: vector,
      k: RETRIEVAL_K,
      num_candidates: Math.max(100, RETRIEVAL_K * 4),
      similarity: MIN_RELEVANCE,
      filter: { term: { organization_id: organizationId } },
    },
    _source: { excludes: ['embedding'] },
  });
  const res = await request(`${b.config.ELASTICSEARCH_URL}/${index}/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const hits = ((await res.body.json()) as { hits: { hits: unknown[] } }).hits.hits;
  return hits.length;
}

/** Milliseconds from sending the question to the first `chunk` event of the SSE answer. */
async function firstChunk(apiUrl: string, token: string, message: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${apiUrl}/chat/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  if (res.status !== 200) throw new Error(`chat/send: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let text = '';
  let first: number | undefined;
  for await (const piece of res.body! as AsyncIterable<Uint8Array>) {
    text += decoder.decode(piece, { stream: true });
    first ??= text.includes('"type":"chunk"') ? performance.now() - t0 : undefined;
  }
  if (first === undefined) throw new Error(`no answer chunk: ${text.slice(0, 200)}`);
  return first;
}

const time = async (work: () => Promise<unknown>) => {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
};

async function main() {
  const b = await openBench('retrieval');
  const api = await listenApi(b);
  try {
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl);
    await fill(b, 'bench-other-organization', 0, OTHER_ORG_CHUNKS);
    const questions = Array.from(
      { length: QUESTIONS },
      (_, i) =>
        `What does the ${WORDS[i % WORDS.length]} clause say about ${WORDS[(i * 7) % WORDS.length]} and ${WORDS[(i * 11) % WORDS.length]}?`,
    );
    const rows: BenchRow[] = [];
    let filled = 0;
    for (const size of SIZES) {
      const f0 = performance.now();
      await fill(b, user.organizationId, filled, size);
      await refreshCollections(b.services);
      console.log(`indexed ${size - filled} chunks in ${((performance.now() - f0) / 1000).toFixed(1)} s`);
      filled = size;
      const raw: number[] = [];
      const retrieval: number[] = [];
      const chat: number[] = [];
      let hits = 0;
      // The first questions warm caches and connections; they are not counted.
      for (const [i, q] of [...questions.slice(0, 5), ...questions].entries()) {
        const [vector] = await b.services.ai.embed([q], 'query');
        const runs = [
          async () => raw.push(await time(async () => (hits += await rawKnn(b, user.organizationId, vector!)))),
          async () => retrieval.push(await time(() => retrieve(b.services, user.organizationId, q))),
          async () => chat.push(await firstChunk(apiUrl, user.token, q)),
        ];
        // Each question starts with another of the three, so none always runs first.
        for (let r = 0; r < runs.length; r++) await runs[(i + r) % runs.length]!();
        if (i === 4) [raw, retrieval, chat].forEach((xs) => (xs.length = 0));
      }
      const rawP50 = percentile(raw, 50);
      const over = (xs: number[]) => percentile(xs, 50) - rawP50;
      const label = size.toLocaleString('en-US');
      rows.push({
        name: `retrieval @${label} chunks`,
        baseline: `raw kNN ${latencies(raw)} (${(hits / (raw.length + 5)).toFixed(0)} hits per question)`,
        measured: `retrieve() ${latencies(retrieval)}; ${signedMs(over(retrieval))} at p50`,
        ratio: percentile(retrieval, 50) / rawP50,
        target: `overhead < ${TARGET_MS} ms over raw kNN`,
        met: over(retrieval) < TARGET_MS,
      });
      rows.push({
        name: `question → first chunk @${label} chunks`,
        baseline: `raw kNN ${latencies(raw)}`,
        measured: `POST /chat/send first SSE chunk ${latencies(chat)}; ${signedMs(over(chat))} at p50`,
        ratio: percentile(chat, 50) / rawP50,
        target: `overhead < ${TARGET_MS} ms over raw kNN`,
        met: over(chat) < TARGET_MS,
      });
      console.log(rows.slice(-2));
    }
    writeResult('retrieval', rows);
  } finally {
    await api.close();
    await closeBench(b);
  }
}

runBench(main);
