/**
 * Embedding throughput in chunks per second: the local sentence-embedding model (ONNX
 * Runtime) at each number of intra-op threads and batch size given, against feature hashing,
 * in this process, on the evaluation corpus's real chunks as ingestion embeds them (title and
 * section leading the text), each after a warm-up pass. No engine is used. Every row gives the
 * process's CPU seconds (all threads), so a figure taken on a loaded machine can be read as
 * chunks per CPU second too, and the load average before and after.
 *   node --import tsx bench/embedding.ts [threads,… (1,2)] [batch sizes,… (1,8,32)]
 */
import { loadConfig } from '../platform/config';
import { createLocalAi } from '../platform/ai/local';
import { openSentenceEncoder } from '../platform/ai/sentence-encoder';
import { embeddingText } from '../services/search/vector-store';
import { corpusChunks } from './corpus';
import { writeResult, type BenchRow } from './report';
import { benchEnvironment, loadNow, runBench } from './support';

const list = (arg: string | undefined, fallback: number[]) => (arg ? arg.split(',').map(Number) : fallback);
const THREADS = list(process.argv[2], [1, 2]);
const BATCH_SIZES = list(process.argv[3], [1, 8, 32]);
/** Hashing is fast: it embeds the corpus again until this long has passed. */
const HASHING_MS = 3000;
const WARM_UP_CHUNKS = 16;

interface Throughput {
  perSecond: number;
  perCpuSecond: number;
  load: string;
}

/** Embeds `texts` once, then again while `more` says so, and measures it. */
async function measure(embed: (texts: string[]) => Promise<unknown>, texts: string[], more: (elapsedMs: number) => boolean) {
  const load = loadNow();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let done = 0;
  do {
    await embed(texts);
    done += texts.length;
  } while (more(performance.now() - t0));
  const seconds = (performance.now() - t0) / 1000;
  const { user, system } = process.cpuUsage(cpu0);
  return { perSecond: done / seconds, perCpuSecond: done / ((user + system) / 1e6), load: `${load} → ${loadNow()}` };
}

const figure = (t: Throughput) =>
  `${t.perSecond.toFixed(t.perSecond < 100 ? 1 : 0)} chunks/s (${t.perCpuSecond.toFixed(t.perCpuSecond < 100 ? 1 : 0)} per CPU second; load ${t.load})`;

async function main() {
  const config = loadConfig(benchEnvironment('embedding'));
  const { chunks } = await corpusChunks();
  const texts = chunks.map(embeddingText);
  const meanChars = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  console.log(`${texts.length} chunks of the evaluation corpus, mean ${meanChars.toFixed(0)} characters`);

  const hashingAi = createLocalAi(null);
  await hashingAi.embed(texts.slice(0, WARM_UP_CHUNKS), 'document');
  const hashing = await measure(
    (t) => hashingAi.embed(t, 'document'),
    texts,
    (ms) => ms < HASHING_MS,
  );
  console.log(`hashing: ${figure(hashing)}`);

  const rows: BenchRow[] = [];
  for (const threads of THREADS) {
    for (const batchSize of BATCH_SIZES) {
      const encoder = openSentenceEncoder(config.EMBEDDING_MODEL_DIR, { threads, batchSize });
      if (!encoder) throw new Error(`no model in ${config.EMBEDDING_MODEL_DIR}: run scripts/stack.sh provision`);
      // Through the provider, as ingestion calls it: the model's vectors padded to 3,072.
      const ai = createLocalAi(encoder);
      await ai.embed(texts.slice(0, WARM_UP_CHUNKS), 'document');
      const model = await measure(
        (t) => ai.embed(t, 'document'),
        texts,
        () => false,
      );
      rows.push({
        name: `embed ${texts.length} corpus chunks: ${encoder.name}, ${threads} thread${threads > 1 ? 's' : ''}, batch ${batchSize}`,
        baseline: `feature hashing: ${figure(hashing)}`,
        measured: figure(model),
        // The model's time per chunk ÷ hashing's.
        ratio: hashing.perSecond / model.perSecond,
        target: 'reported (ratio: time per chunk ÷ hashing’s)',
        met: null,
      });
      console.log(rows.at(-1));
    }
  }
  writeResult('embedding', rows);
}

runBench(main);
