/**
 * Ingestion with the local embedding model (what `npm start` runs) against the model's own
 * throughput on this machine, the anchor: the same ONNX session as the worker's (the
 * configured threads and batch size), in this process, embedding the file's chunks as
 * ingestion words them (`embeddingText`), in calls of one ingestion batch, with no service
 * around it. Measured on a sample of the file's chunks just before and just after the
 * ingestion (the machine is shared: the anchor is their mean), then:
 * - the model alone on what ingestion embeds for the same chunks (`embedChunks`: sentence
 *   vectors, the chunk's own made from them), and on what it embedded before it did so (each
 *   chunk's text and each of its sentences), which tells the model's share from the service's;
 * - ingestion through the real path, a TXT uploaded over HTTP to an API process, the workflow
 *   run by a worker process, until `ready`: chunks/s against the anchor (target ≥ 0.7), the
 *   time until the first chunk is searchable (`GET /chat/stats` counts it), and the CPU
 *   seconds of the worker and of Elasticsearch per chunk.
 *   source .stack/stack.env && node --import tsx bench/ingest-model.ts [TXT MB (2)] [anchor sample chunks (500)]
 */
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLocalAi } from '../platform/ai/local';
import { openSentenceEncoder } from '../platform/ai/sentence-encoder';
import { chunkBatches } from '../services/search/chunking';
import type { Chunk } from '../models/document';
import { MIME } from '../services/documents/document-files';
import { extractText } from '../services/documents/extraction';
import { embedChunks, embeddingText, sentencesOf } from '../services/search/vector-store';
import { INGEST_BATCH } from '../workflows/document-ingestion.shared';
import { startApiProcess, startWorkerProcess } from '../test/support/processes';
import { writeTextFile } from './fixtures';
import { writeResult, type BenchRow } from './report';
import { closeBench, cpuSeconds, loadNow, openBench, registerUser, runBench, waitForWorker } from './support';

const TXT_MB = Number(process.argv[2] ?? 2);
const SAMPLE = Number(process.argv[3] ?? 500);
const TARGET = 0.7;

interface Rate {
  perSecond: number;
  perCpuSecond: number;
  seconds: number;
  load: string;
}

/** Runs `embed` over `chunks` in calls of one ingestion batch, timed with this process's CPU. */
async function rate<T>(chunks: readonly T[], embed: (part: T[]) => Promise<unknown>): Promise<Rate> {
  const load = loadNow();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < chunks.length; i += INGEST_BATCH) await embed(chunks.slice(i, i + INGEST_BATCH));
  const seconds = (performance.now() - t0) / 1000;
  const { user, system } = process.cpuUsage(cpu0);
  return {
    perSecond: chunks.length / seconds,
    perCpuSecond: chunks.length / ((user + system) / 1e6),
    seconds,
    load: `${load} → ${loadNow()}`,
  };
}

const figure = (r: Rate) =>
  `${r.perSecond.toFixed(1)} chunks/s (${r.perCpuSecond.toFixed(1)} per CPU second, ${r.seconds.toFixed(1)} s; load ${r.load})`;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-model-'));
  // Long files take most of an hour with the model: the token must outlive it.
  const b = await openBench('ingest-model', { ACCESS_TOKEN_TTL_SECONDS: String(4 * 3600) });
  const api = await startApiProcess(b.env);
  const worker = startWorkerProcess(b.env);
  try {
    const file = path.join(dir, `agreement-${TXT_MB}mb.txt`);
    await writeTextFile(file, Math.round(TXT_MB * 1_000_000));
    const title = path.basename(file);
    const chunks: Chunk[] = [];
    for await (const batch of chunkBatches(extractText(file, MIME.txt), INGEST_BATCH)) chunks.push(...batch);
    const sample = chunks.slice(0, SAMPLE).map((c) => ({ title, section: c.section, text: c.text }));
    const { EMBEDDING_MODEL_DIR, EMBEDDING_THREADS, EMBEDDING_BATCH_SIZE } = b.config;
    const encoder = openSentenceEncoder(EMBEDDING_MODEL_DIR, { threads: EMBEDDING_THREADS, batchSize: EMBEDDING_BATCH_SIZE });
    if (!encoder) throw new Error(`no model in ${EMBEDDING_MODEL_DIR}: run scripts/stack.sh provision`);
    const ai = createLocalAi(encoder);
    const session = `${encoder.name}, ${EMBEDDING_THREADS} thread${EMBEDDING_THREADS > 1 ? 's' : ''}, batch ${EMBEDDING_BATCH_SIZE}`;
    console.log(`${chunks.length} chunks; anchor on the first ${sample.length}; ${session}`);
    const anchor = () => rate(sample, (part) => ai.embed(part.map(embeddingText), 'document'));
    await ai.embed(sample.slice(0, 16).map(embeddingText), 'document');

    const anchorBefore = await anchor();
    console.log(`anchor before: ${figure(anchorBefore)}`);
    const asIngestion = await rate(sample, (part) => embedChunks(ai, part));
    // As ingestion embedded before (0.5.0): each chunk's text, then each of its sentences under its heading.
    const asBefore = await rate(sample, (part) =>
      ai.embed(
        [...part.map(embeddingText), ...part.flatMap((c) => sentencesOf(c.text).map((s) => (c.section ? `${c.section}\n${s}` : s)))],
        'document',
      ),
    );

    await waitForWorker(b, 120_000, worker.pid);
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl);
    const headers = { authorization: `Bearer ${user.token}` };
    const pids = { api: api.pid, worker: worker.pid };
    const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const load0 = loadNow();
    const t0 = performance.now();
    const form = new FormData();
    form.append('file', await openAsBlob(file, { type: MIME.txt }), title);
    form.append('category', 'contract');
    const res = await fetch(`${apiUrl}/documents/upload`, { method: 'POST', headers, body: form });
    const doc = (await res.json()) as { id: string; detail?: string };
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${doc.detail}`);
    const done = b.services.temporal.workflow.getHandle(`ingest-${doc.id}`).result();
    let firstSearchable = Number.NaN;
    let finished = false;
    void done.finally(() => (finished = true)).catch(() => undefined);
    // Searchable: the chat's own count of the organization's vectors sees it.
    while (!finished && Number.isNaN(firstSearchable)) {
      const stats = (await (await fetch(`${apiUrl}/chat/stats`, { headers })).json()) as {
        collections: Record<string, { vectors: number }>;
      };
      if (Object.values(stats.collections).some((c) => c.vectors > 0)) firstSearchable = (performance.now() - t0) / 1000;
      else await new Promise((r) => setTimeout(r, 250));
    }
    await done;
    const seconds = (performance.now() - t0) / 1000;
    if (Number.isNaN(firstSearchable)) firstSearchable = seconds;
    const load1 = loadNow();
    const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid) - cpu0[k]!]));
    const got = (await (await fetch(`${apiUrl}/documents/${doc.id}`, { headers })).json()) as { status: string; chunk_count: number };
    if (got.status !== 'ready') throw new Error(`ingestion ended ${got.status}`);

    const anchorAfter = await anchor();
    console.log(`anchor after: ${figure(anchorAfter)}`);
    const anchorRate = (anchorBefore.perSecond + anchorAfter.perSecond) / 2;
    const anchorCpu = (anchorBefore.perCpuSecond + anchorAfter.perCpuSecond) / 2;
    const ingestion = got.chunk_count / seconds;
    const anchorText = `model alone (${session}): ${anchorRate.toFixed(1)} chunks/s, ${anchorCpu.toFixed(1)} per CPU second (mean of before ${figure(anchorBefore)} and after ${figure(anchorAfter)})`;
    const rows: BenchRow[] = [
      {
        name: `model alone on what ingestion embeds, ${sample.length} chunks`,
        baseline: anchorText,
        measured: `sentence vectors, chunk's own made from them: ${figure(asIngestion)}; as before (chunk text and each sentence embedded): ${figure(asBefore)}`,
        ratio: asIngestion.perSecond / anchorBefore.perSecond,
        target: 'reported (ratio: against the anchor before)',
        met: null,
      },
      {
        name: `ingest a ${TXT_MB} MB TXT with the model (${got.chunk_count} chunks), upload → ready`,
        baseline: anchorText,
        measured:
          `${ingestion.toFixed(1)} chunks/s (${seconds.toFixed(1)} s; first chunk searchable after ${firstSearchable.toFixed(1)} s; load ${load0} → ${load1}); ` +
          `CPU ${Object.entries(cpu)
            .map(([k, s]) => `${k} ${s.toFixed(1)} s`)
            .join(', ')}: worker ${(got.chunk_count / cpu.worker!).toFixed(1)} chunks per CPU second`,
        ratio: ingestion / anchorRate,
        target: `≥ ${TARGET} × the anchor's chunks/s`,
        met: ingestion / anchorRate >= TARGET,
      },
    ];
    writeResult('ingest-model', rows);
  } finally {
    await worker.stop();
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
    await closeBench(b);
  }
}

runBench(main);
