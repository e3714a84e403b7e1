/**
 * Retrieval at 1,000 and 10,000 indexed chunks of one organization (plus 2,000 of another
 * one, which the organization filter must skip), on the real engines, once per embedder:
 * feature hashing and the local sentence-embedding model (when provisioned), each with its
 * own indices, its chunks tagged with its model:
 * - retrieval time: `retrieve()` (embed the question, kNN and keyword search over the three
 *   collections, merge, build the context) against the raw kNN request it makes, sent
 *   straight to Elasticsearch over HTTP (same indices, same organization and model filter, k,
 *   candidates and similarity floor, the question's vector computed beforehand);
 * - question to first chunk: `POST /chat/send` (SSE) through the full API until the first
 *   `chunk` event, against the same raw kNN; with the CPU time the API process (this one, which
 *   runs the model) spent until then, and spent on `retrieve()`, which the load sways less.
 * The chunks are real contract language (bench/corpus.ts: runs of the evaluation corpus's
 * sentences, distinct for every chunk), the questions the evaluation's. Hashing embeds each
 * chunk's text; the model's vector of a chunk is the normalized mean of its vectors of the
 * chunk's sentences (1,548, embedded once), since embedding 12,000 chunk texts would take the
 * model 10 to 30 minutes on 2 shared cores, and the chunk keeps those sentence vectors, with
 * their texts, as ingestion stores them (`sentencesOf`; no section, so a sentence is embedded
 * as itself). Every question is embedded by the model at query time, and so is every sentence
 * the answer ranks that is not a stored one. Questions are interleaved (raw, retrieve, chat)
 * so load drifts hit all three alike.
 *   source .stack/stack.env && [BENCH_EMBEDDERS=hashing,model] node --import tsx bench/retrieval.ts [questions per size] [chunk counts...]
 */
import { request } from 'undici';
import { HASHING_MODEL, normalize } from '../platform/ai/embeddings';
import { RETRIEVAL_K, retrieve } from '../services/search/retrieval';
import {
  COLLECTIONS,
  MIN_RELEVANCE,
  indexChunks,
  indexName,
  refreshCollections,
  sentencesOf,
  type ChunkRecord,
  type EmbeddedSentence,
} from '../services/search/vector-store';
import { writeResult, type BenchRow } from './report';
import { closeBench, latencies, listenApi, loadNow, openBench, percentile, registerUser, runBench, signedMs, type Bench } from './support';
import { composeChunks, composedText, corpusChunks, type Composed } from './corpus';

const QUESTIONS = Number(process.argv[2] ?? 40);
const SIZES = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [1_000, 10_000];
const EMBEDDERS = (process.env.BENCH_EMBEDDERS ?? 'hashing,model').split(',');
/** Without a model folder the local provider embeds by feature hashing (platform/ai/index.ts). */
const NO_MODEL_DIR = '/nonexistent';
const OTHER_ORG_CHUNKS = 2_000;
const TARGET_MS = 20;

/** The vectors of chunks `from`…`to - 1`: each chunk's own and its sentences'. */
type ChunkVectors = (from: number, to: number) => Promise<Array<{ vector: number[]; sentences: EmbeddedSentence[] }>>;

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * Hashing: each chunk's text embedded, no sentence vectors (as ingestion). The model: the mean
 * of its sentences' vectors, normalized, and the vectors of the sentences `sentencesOf` finds.
 */
async function chunkVectors(b: Bench, c: Composed): Promise<ChunkVectors> {
  const ai = b.services.ai;
  if (ai.models.embedding === HASHING_MODEL)
    return async (from, to) =>
      (
        await ai.embed(
          range(from, to).map((n) => composedText(c, n)),
          'document',
        )
      ).map((vector) => ({ vector, sentences: [] }));
  const sentenceVectors = await ai.embed(c.sentences, 'document');
  const mean = (members: number[]) => {
    const sum = new Array<number>(sentenceVectors[0]!.length).fill(0);
    for (const m of members) sentenceVectors[m]!.forEach((x, k) => (sum[k]! += x));
    return normalize(sum);
  };
  // A line `sentencesOf` trims differently from the corpus's sentence (a heading marker) is embedded once, here.
  const known = new Map(c.sentences.map((s, i) => [s, sentenceVectors[i]!]));
  return async (from, to) => {
    const texts = range(from, to).map((n) => sentencesOf(composedText(c, n)));
    const missing = [...new Set(texts.flat().filter((t) => !known.has(t)))];
    (await ai.embed(missing, 'document')).forEach((v, i) => known.set(missing[i]!, v));
    return range(from, to).map((n, j) => ({
      vector: mean(c.members[n]!),
      sentences: texts[j]!.map((text) => ({ text, vector: known.get(text)! })),
    }));
  };
}

/** Adds chunks `from`…`to - 1` of an organization, spread over the three collections. */
async function fill(b: Bench, c: Composed, vectorsOf: ChunkVectors, organizationId: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 500) {
    const end = Math.min(i + 500, to);
    const vectors = await vectorsOf(i, end);
    const records: ChunkRecord[] = range(i, end).map((n, j) => {
      const text = composedText(c, n);
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
        ...vectors[j]!,
      };
    });
    // Bulk requests of 100: 500 chunks with their sentence vectors are some 40 MB, which timed out at load 17.
    for (let k = 0; k < records.length; k += 100)
      await indexChunks(b.services, COLLECTIONS[Math.floor(i / 500) % COLLECTIONS.length]!, records.slice(k, k + 100));
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
      filter: [{ term: { organization_id: organizationId } }, { term: { embedding_model: b.services.ai.models.embedding } }],
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

/** This process's CPU milliseconds since `since` (the API and the model run in it: load-insensitive, unlike wall time). */
const cpuMsSince = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

/** Milliseconds, and this process's CPU milliseconds, from sending the question to the first `chunk` event of the SSE answer. */
async function firstChunk(apiUrl: string, token: string, message: string): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let cpuMs: number | undefined;
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
    if (first === undefined && text.includes('"type":"chunk"')) {
      first = performance.now() - t0;
      cpuMs = cpuMsSince(cpu0);
    }
  }
  if (first === undefined) throw new Error(`no answer chunk: ${text.slice(0, 200)}`);
  return { ms: first, cpuMs: cpuMs! };
}

/** Milliseconds `work` takes; its CPU milliseconds in this process go to `cpuMs`. */
const time = async (work: () => Promise<unknown>, cpuMs?: number[]) => {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await work();
  cpuMs?.push(cpuMsSince(cpu0));
  return performance.now() - t0;
};

/** The rows of one embedder ('hashing' or 'model'), at every size, on indices of its own. */
async function measureEmbedder(embedder: string, composed: Composed, questions: readonly string[]): Promise<BenchRow[]> {
  const b = await openBench('retrieval', embedder === 'hashing' ? { EMBEDDING_MODEL_DIR: NO_MODEL_DIR } : {});
  const api = await listenApi(b);
  try {
    const model = b.services.ai.models.embedding;
    if (embedder !== 'hashing' && model === HASHING_MODEL)
      throw new Error(`no model in ${b.config.EMBEDDING_MODEL_DIR}: run scripts/stack.sh provision`);
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl);
    const vectorsOf = await chunkVectors(b, composed);
    await fill(b, composed, vectorsOf, 'bench-other-organization', 0, OTHER_ORG_CHUNKS);
    const rows: BenchRow[] = [];
    let filled = 0;
    for (const size of SIZES) {
      const f0 = performance.now();
      await fill(b, composed, vectorsOf, user.organizationId, filled, size);
      await refreshCollections(b.services);
      console.log(`${model}: indexed ${size - filled} chunks in ${((performance.now() - f0) / 1000).toFixed(1)} s`);
      filled = size;
      const load = loadNow();
      const embedding: number[] = [];
      const raw: number[] = [];
      const retrieval: number[] = [];
      const chat: number[] = [];
      const retrievalCpu: number[] = [];
      const chatCpu: number[] = [];
      let hits = 0;
      // The first questions warm caches, connections and the model; they are not counted.
      for (const [i, q] of [...questions.slice(0, 5), ...questions].entries()) {
        const e0 = performance.now();
        const [vector] = await b.services.ai.embed([q], 'query');
        embedding.push(performance.now() - e0);
        const runs = [
          async () => raw.push(await time(async () => (hits += await rawKnn(b, user.organizationId, vector!)))),
          async () => retrieval.push(await time(() => retrieve(b.services, user.organizationId, q), retrievalCpu)),
          async () => {
            const first = await firstChunk(apiUrl, user.token, q);
            chat.push(first.ms);
            chatCpu.push(first.cpuMs);
          },
        ];
        // Each question starts with another of the three, so none always runs first.
        for (let r = 0; r < runs.length; r++) await runs[(i + r) % runs.length]!();
        if (i === 4) {
          [embedding, raw, retrieval, chat, retrievalCpu, chatCpu].forEach((xs) => (xs.length = 0));
          hits = 0;
        }
      }
      const rawP50 = percentile(raw, 50);
      const over = (xs: number[]) => percentile(xs, 50) - rawP50;
      const label = `${size.toLocaleString('en-US')} chunks, ${model}`;
      rows.push({
        name: `retrieval @${label}`,
        baseline: `raw kNN ${latencies(raw)} (${(hits / raw.length).toFixed(0)} hits per question)`,
        measured: `retrieve() ${latencies(retrieval)}; ${signedMs(over(retrieval))} at p50 (embedding the question alone: ${latencies(embedding)}); load ${load} → ${loadNow()}`,
        ratio: percentile(retrieval, 50) / rawP50,
        target: `overhead < ${TARGET_MS} ms over raw kNN`,
        met: over(retrieval) < TARGET_MS,
      });
      rows.push({
        name: `question → first chunk @${label}`,
        baseline: `raw kNN ${latencies(raw)}`,
        measured: `POST /chat/send first SSE chunk ${latencies(chat)}; ${signedMs(over(chat))} at p50; CPU of the API process until then ${latencies(chatCpu)} (retrieve() ${latencies(retrievalCpu)})`,
        ratio: percentile(chat, 50) / rawP50,
        target: `overhead < ${TARGET_MS} ms over raw kNN`,
        met: over(chat) < TARGET_MS,
      });
      console.log(rows.slice(-2));
    }
    return rows;
  } finally {
    await api.close();
    await closeBench(b);
  }
}

async function main() {
  const unknown = EMBEDDERS.filter((e) => e !== 'hashing' && e !== 'model');
  if (unknown.length) throw new Error(`BENCH_EMBEDDERS: unknown ${unknown.join(', ')} (hashing, model)`);
  const corpus = await corpusChunks();
  const composed = composeChunks(corpus.chunks, Math.max(OTHER_ORG_CHUNKS, ...SIZES));
  const questions = Array.from({ length: QUESTIONS }, (_, i) => corpus.questions[i % corpus.questions.length]!);
  const rows: BenchRow[] = [];
  // One after the other in this process, so both meet the same engines and much the same load.
  for (const embedder of EMBEDDERS) rows.push(...(await measureEmbedder(embedder, composed, questions)));
  writeResult('retrieval', rows);
}

runBench(main);
