/**
 * Ingestion through the real path: the file uploaded over HTTP to the API (its own
 * process), the ingestion workflow run by a worker in a process of its own, until the
 * document is `ready`. For a small TXT, a 200-page PDF and a 50 MB TXT:
 * - throughput (pages/s, MB/s) against the raw extraction and chunking of the same file
 *   in this process (no store, no Elasticsearch, no Temporal), measured in the same run;
 * - the worker's peak resident memory while it ingests the file: each file gets a fresh
 *   worker process (a reused one carries the previous file's heap), whose peak (VmHWM)
 *   is reset once it polls and has settled, so start-up (bundling the workflows) does not
 *   count; the growth over that settled size is reported too. The target is memory flat
 *   in file size: the large TXT's peak against the small TXT's.
 *   source .stack/stack.env && node --import tsx bench/ingestion.ts [TXT MB] [PDF pages]
 */
import { mkdtempSync, openAsBlob, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkBatches } from '../services/documents/chunking';
import { extractText, MIME, type SupportedMime } from '../services/documents/extraction';
import { startApiProcess, startWorkerProcess } from '../test/support/processes';
import { writeResult, type BenchRow } from './report';
import { closeBench, memoryOf, openBench, registerUser, resetPeakMemory, runBench, waitForWorker, type Bench } from './support';
import { makePdf, writeTextFile } from './fixtures';

const TXT_MB = Number(process.argv[2] ?? 50);
const PDF_PAGES = Number(process.argv[3] ?? 200);
const SMALL_TXT_BYTES = 200_000;
/** "Flat": the big file's peak may exceed the small file's by this factor at most. */
const FLAT_FACTOR = 1.25;

interface Sample {
  label: string;
  file: string;
  mime: SupportedMime;
  /** What throughput counts: pages for a PDF, megabytes for text. */
  units: number;
  unit: 'pages' | 'MB';
}

/** Raw extraction and chunking of the file (streamed, as the worker does), in seconds. */
async function rawSeconds(s: Sample): Promise<{ seconds: number; chunks: number }> {
  const t0 = performance.now();
  let chunks = 0;
  for await (const batch of chunkBatches(extractText(s.file, s.mime), 100)) chunks += batch.length;
  return { seconds: (performance.now() - t0) / 1000, chunks };
}

interface Ingested {
  seconds: number;
  chunks: number;
  pages: number;
  /** The worker's peak resident memory while it ingested the file, MiB. */
  peakMiB: number;
  /** Its settled resident memory just before, MiB. */
  beforeMiB: number;
}

/** Settling time of a fresh worker after it starts polling (its start-up garbage collected or not, RSS steady). */
const SETTLE_MS = 5000;

/** In a fresh worker process: upload over HTTP, then wait for the ingestion workflow and read the document. */
async function ingest(b: Bench, apiUrl: string, token: string, s: Sample): Promise<Ingested> {
  const worker = startWorkerProcess(b.env);
  try {
    await waitForWorker(b, 120_000, worker.pid);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const beforeMiB = memoryOf(worker.pid).rss;
    resetPeakMemory(worker.pid);
    return { ...(await uploadAndWait(b, apiUrl, token, s)), peakMiB: memoryOf(worker.pid).peak, beforeMiB };
  } finally {
    await worker.stop();
  }
}

async function uploadAndWait(b: Bench, apiUrl: string, token: string, s: Sample): Promise<Omit<Ingested, 'peakMiB' | 'beforeMiB'>> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', await openAsBlob(s.file, { type: s.mime }), path.basename(s.file));
  form.append('category', 'other');
  const res = await fetch(`${apiUrl}/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const doc = (await res.json()) as { id: string; detail?: string };
  if (res.status !== 201) throw new Error(`upload ${s.label}: ${res.status} ${doc.detail}`);
  await b.services.temporal.workflow.getHandle(`ingest-${doc.id}`).result();
  const seconds = (performance.now() - t0) / 1000;
  const got = await fetch(`${apiUrl}/documents/${doc.id}`, { headers: { authorization: `Bearer ${token}` } });
  const ready = (await got.json()) as { status: string; error: string | null; chunk_count: number; page_count: number };
  if (ready.status !== 'ready') throw new Error(`${s.label}: ${ready.status} ${ready.error}`);
  return { seconds, chunks: ready.chunk_count, pages: ready.page_count };
}

const rate = (units: number, seconds: number, unit: string) => `${(units / seconds).toFixed(units / seconds < 10 ? 2 : 1)} ${unit}/s`;

async function main() {
  const b = await openBench('ingestion');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ingestion-'));
  const api = await startApiProcess(b.env);
  try {
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl);
    const small = path.join(dir, 'small.txt');
    const big = path.join(dir, `big-${TXT_MB}mb.txt`);
    const pdf = path.join(dir, `${PDF_PAGES}-pages.pdf`);
    await writeTextFile(small, SMALL_TXT_BYTES);
    await writeTextFile(big, Math.round(TXT_MB * 1_000_000));
    writeFileSync(pdf, await makePdf(PDF_PAGES));
    const mb = (file: string) => statSync(file).size / 1_000_000;
    const samples: Sample[] = [
      { label: `small TXT (${(SMALL_TXT_BYTES / 1000).toFixed(0)} kB)`, file: small, mime: MIME.txt, units: mb(small), unit: 'MB' },
      { label: `${PDF_PAGES}-page PDF (${mb(pdf).toFixed(1)} MB)`, file: pdf, mime: MIME.pdf, units: PDF_PAGES, unit: 'pages' },
      { label: `${TXT_MB} MB TXT`, file: big, mime: MIME.txt, units: mb(big), unit: 'MB' },
    ];
    const rows: BenchRow[] = [];
    const peaks: number[] = [];
    for (const s of samples) {
      const raw = await rawSeconds(s);
      const got = await ingest(b, apiUrl, user.token, s);
      peaks.push(got.peakMiB);
      rows.push({
        name: `ingest ${s.label}`,
        baseline: `extract + chunk in process: ${rate(s.units, raw.seconds, s.unit)} (${raw.seconds.toFixed(2)} s, ${raw.chunks} chunks)`,
        measured:
          `upload → ready: ${rate(s.units, got.seconds, s.unit)} (${got.seconds.toFixed(1)} s, ${got.chunks} chunks, ${(got.chunks / got.seconds).toFixed(0)} chunks/s); ` +
          `worker peak ${got.peakMiB.toFixed(0)} MiB (fresh worker, settled at ${got.beforeMiB.toFixed(0)} MiB: +${(got.peakMiB - got.beforeMiB).toFixed(0)} MiB)`,
        ratio: raw.seconds / got.seconds,
        target: 'reported (throughput)',
        met: null,
      });
      console.log(rows.at(-1));
    }
    const ratio = peaks[2]! / peaks[0]!;
    rows.push({
      name: `worker peak memory, ${TXT_MB} MB TXT vs small TXT`,
      baseline: `${peaks[0]!.toFixed(0)} MiB (small TXT)`,
      measured: `${peaks[2]!.toFixed(0)} MiB (${TXT_MB} MB TXT); ${PDF_PAGES}-page PDF ${peaks[1]!.toFixed(0)} MiB`,
      ratio,
      target: `flat: ≤ ${FLAT_FACTOR} × small-file peak`,
      met: ratio <= FLAT_FACTOR,
    });
    writeResult('ingestion', rows);
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
    await closeBench(b);
  }
}

runBench(main);
