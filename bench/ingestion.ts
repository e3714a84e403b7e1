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
 *   in file size: the large TXT's peak against the small TXT's;
 * - where the time goes (issue 21): from the worker's per-step debug log (extraction with
 *   chunking and staging, reading staged batches, embedding, Elasticsearch bulk requests,
 *   the closing refresh) and from the workflow's history (runs, events, workflow tasks,
 *   activity waits), with the CPU seconds of every engine, the API and the worker.
 * The embedder is feature hashing (`local-hashing-3072`, issue 21's target) unless
 * BENCH_EMBEDDING=model, which keeps the provisioned sentence-embedding model.
 *   source .stack/stack.env && node --import tsx bench/ingestion.ts [TXT MB] [PDF pages]
 */
import { mkdtempSync, openAsBlob, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkBatches } from '../services/search/chunking';
import { MIME, type SupportedMime } from '../services/documents/document-files';
import { extractText } from '../services/documents/extraction';
import { temporal } from '@temporalio/proto';
import { startApiProcess, startWorkerProcess } from '../test/support/processes';
import { writeResult, type BenchRow } from './report';
import {
  closeBench,
  cpuMeter,
  enginePids,
  memoryOf,
  openBench,
  registerUser,
  resetPeakMemory,
  runBench,
  waitForWorker,
  type Bench,
} from './support';
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
  /** Of which the upload request (the file stored, the workflow started). */
  uploadSeconds: number;
  workflowId: string;
  chunks: number;
  pages: number;
  /** The worker's peak resident memory while it ingested the file, MiB. */
  peakMiB: number;
  /** Its settled resident memory just before, MiB. */
  beforeMiB: number;
  /** CPU seconds of every engine, the API and the worker while the file was ingested. */
  cpu: Record<string, string>;
  /** Elasticsearch's own time on the run's indices while the file was ingested: theirs alone, unlike its process's CPU. */
  es: EsTimes;
  /** The worker's debug log (JSON lines). */
  log: string;
}

/** Settling time of a fresh worker after it starts polling (its start-up garbage collected or not, RSS steady). */
const SETTLE_MS = 5000;

/** In a fresh worker process: upload over HTTP, then wait for the ingestion workflow and read the document. */
async function ingest(b: Bench, api: { pid: number; url: string }, token: string, s: Sample, logFile: string): Promise<Ingested> {
  const worker = startWorkerProcess({ ...b.env, LOG_LEVEL: 'debug' }, logFile);
  try {
    await waitForWorker(b, 120_000, worker.pid);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const beforeMiB = memoryOf(worker.pid).rss;
    resetPeakMemory(worker.pid);
    const cpu = cpuMeter({ ...enginePids(), api: api.pid, worker: worker.pid });
    const es0 = await esTimes(b);
    const got = await uploadAndWait(b, `${api.url}/api/v1`, token, s);
    const cpuNow = cpu();
    const es = await esTimes(b);
    for (const k of Object.keys(es) as Array<keyof EsTimes>) es[k] -= es0[k];
    return { ...got, peakMiB: memoryOf(worker.pid).peak, beforeMiB, cpu: cpuNow, es, log: readFileSync(logFile, 'utf8') };
  } finally {
    await worker.stop();
  }
}

async function uploadAndWait(
  b: Bench,
  apiUrl: string,
  token: string,
  s: Sample,
): Promise<Omit<Ingested, 'peakMiB' | 'beforeMiB' | 'cpu' | 'es' | 'log'>> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', await openAsBlob(s.file, { type: s.mime }), path.basename(s.file));
  form.append('category', 'other');
  const res = await fetch(`${apiUrl}/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const doc = (await res.json()) as { id: string; detail?: string };
  if (res.status !== 201) throw new Error(`upload ${s.label}: ${res.status} ${doc.detail}`);
  const uploadSeconds = (performance.now() - t0) / 1000;
  const workflowId = `ingest-${doc.id}`;
  await b.services.temporal.workflow.getHandle(workflowId).result();
  const seconds = (performance.now() - t0) / 1000;
  const got = await fetch(`${apiUrl}/documents/${doc.id}`, { headers: { authorization: `Bearer ${token}` } });
  const ready = (await got.json()) as { status: string; error: string | null; chunk_count: number; page_count: number };
  if (ready.status !== 'ready') throw new Error(`${s.label}: ${ready.status} ${ready.error}`);
  return { seconds, uploadSeconds, workflowId, chunks: ready.chunk_count, pages: ready.page_count };
}

interface EsTimes {
  indexingMs: number;
  merges: number;
  mergeMs: number;
  flushMs: number;
  refreshMs: number;
}

/** Elasticsearch's counters of the run's indices (primaries): time indexing, merging, flushing and refreshing. */
async function esTimes(b: Bench): Promise<EsTimes> {
  const stats = await b.services.es.indices.stats({
    index: `${b.config.ELASTICSEARCH_INDEX_PREFIX}*`,
    metric: ['indexing', 'merge', 'flush', 'refresh'],
  });
  const p = stats._all.primaries;
  return {
    indexingMs: p?.indexing?.index_time_in_millis ?? 0,
    merges: p?.merges?.total ?? 0,
    mergeMs: p?.merges?.total_time_in_millis ?? 0,
    flushMs: p?.flush?.total_time_in_millis ?? 0,
    refreshMs: p?.refresh?.total_time_in_millis ?? 0,
  };
}

/** The worker's per-step timings (the ingestion use cases in services/documents/ log them at debug level), summed. */
function stepTimes(log: string) {
  const sum = { extractMs: 0, readMs: 0, embedMs: 0, indexMs: 0, drainMs: 0, checkMs: 0, cleanupMs: 0, refreshMs: 0 };
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as Record<string, number | string>;
    const n = (k: string) => (typeof e[k] === 'number' ? e[k] : 0);
    if (e.msg === 'ingestion extracted') sum.extractMs += n('ms');
    if (e.msg === 'ingestion batch indexed')
      for (const k of ['readMs', 'embedMs', 'indexMs', 'drainMs', 'checkMs'] as const) sum[k] += n(k);
    if (e.msg === 'ingestion refreshed') {
      sum.cleanupMs += n('cleanupMs');
      sum.refreshMs += n('refreshMs');
    }
  }
  return sum;
}

/**
 * What Temporal did for one ingestion, over every run of its continue-as-new chain: history
 * events, workflow tasks (schedule → completion, queue wait included), and per activity type
 * the count, the time tasks waited for the worker and the time they ran.
 */
async function workflowCosts(b: Bench, workflowId: string) {
  const T = temporal.api.enums.v1.EventType;
  const at = (e: temporal.api.history.v1.IHistoryEvent) => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
  const costs = {
    runs: 0,
    events: 0,
    workflowTasks: 0,
    workflowTaskMs: 0,
    activities: {} as Record<string, { count: number; waitMs: number; runMs: number }>,
  };
  for await (const run of b.services.temporal.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
    const events = (await b.services.temporal.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? [];
    costs.runs++;
    costs.events += events.length;
    const byId = new Map<number, temporal.api.history.v1.IHistoryEvent>(events.map((e) => [Number(e.eventId), e]));
    let wftScheduled: number | undefined;
    for (const e of events) {
      if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) wftScheduled = at(e);
      if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && wftScheduled !== undefined) {
        costs.workflowTasks++;
        costs.workflowTaskMs += at(e) - wftScheduled;
      }
      const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      if (!done) continue;
      const scheduled = byId.get(Number(done.scheduledEventId));
      const started = byId.get(Number(done.startedEventId));
      const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
      const a = (costs.activities[type] ??= { count: 0, waitMs: 0, runMs: 0 });
      a.count++;
      if (scheduled && started) {
        a.waitMs += at(started) - at(scheduled);
        a.runMs += at(e) - at(started);
      }
    }
  }
  return costs;
}

/** One sentence per step of a file's ingestion: seconds, chunks/s, and what Temporal added. */
async function breakdown(b: Bench, got: Ingested): Promise<string> {
  const t = stepTimes(got.log);
  const w = await workflowCosts(b, got.workflowId);
  const activityRunMs = Object.values(w.activities).reduce((sum, a) => sum + a.runMs, 0);
  const activityWaitMs = Object.values(w.activities).reduce((sum, a) => sum + a.waitMs, 0);
  const step = (label: string, ms: number) => `${label} ${(ms / 1000).toFixed(1)} s (${(got.chunks / (ms / 1000)).toFixed(0)} chunks/s)`;
  const activities = Object.entries(w.activities)
    .map(([type, a]) => `${type} × ${a.count} running ${(a.runMs / 1000).toFixed(1)} s`)
    .join(', ');
  return [
    step('extraction + chunking + staging', t.extractMs),
    step('reading staged batches', t.readMs),
    step('embedding', t.embedMs),
    // Requests overlap one another and the next batch's embedding: their sum may exceed the span's time.
    step('Elasticsearch bulk requests', t.indexMs),
    `waiting for the last requests of a span ${(t.drainMs / 1000).toFixed(1)} s`,
    `deleted check ${(t.checkMs / 1000).toFixed(1)} s`,
    `closing clean-up ${(t.cleanupMs / 1000).toFixed(1)} s, refresh ${(t.refreshMs / 1000).toFixed(2)} s`,
    `upload request ${got.uploadSeconds.toFixed(1)} s`,
    `workflow overhead ${(got.seconds - got.uploadSeconds - activityRunMs / 1000).toFixed(1)} s outside activities ` +
      `(${w.runs} runs, ${w.events} history events, ${w.workflowTasks} workflow tasks taking ${(w.workflowTaskMs / 1000).toFixed(1)} s, ` +
      `${activities}; activity tasks waited ${(activityWaitMs / 1000).toFixed(1)} s in all)`,
    `Elasticsearch's own time on the run's indices: indexing ${(got.es.indexingMs / 1000).toFixed(1)} s, ` +
      `${got.es.merges} merges ${(got.es.mergeMs / 1000).toFixed(1)} s, flushes ${(got.es.flushMs / 1000).toFixed(1)} s, refreshes ${(got.es.refreshMs / 1000).toFixed(1)} s`,
    `CPU ${Object.entries(got.cpu)
      .map(([name, sec]) => `${name} ${sec}`)
      .join(', ')}`,
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ].join('; ');
}

const rate = (units: number, seconds: number, unit: string) => `${(units / seconds).toFixed(units / seconds < 10 ? 2 : 1)} ${unit}/s`;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ingestion-'));
  // A model folder that does not exist: the local provider embeds by feature hashing.
  const hashing = process.env.BENCH_EMBEDDING !== 'model';
  // With the model the 50 MB TXT takes most of an hour: the token must outlive it (30 min by default).
  const tokenTtl = { ACCESS_TOKEN_TTL_SECONDS: String(4 * 3600) };
  const b = await openBench('ingestion', hashing ? { ...tokenTtl, EMBEDDING_MODEL_DIR: path.join(dir, 'no-model') } : tokenTtl);
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
    for (const [i, s] of samples.entries()) {
      const raw = await rawSeconds(s);
      const got = await ingest(b, api, user.token, s, path.join(dir, `worker-${i}.log`));
      peaks.push(got.peakMiB);
      rows.push({
        name: `ingest ${s.label}${hashing ? '' : ' (embedding model)'}`,
        baseline: `extract + chunk in process: ${rate(s.units, raw.seconds, s.unit)} (${raw.seconds.toFixed(2)} s, ${raw.chunks} chunks)`,
        measured:
          `upload → ready: ${rate(s.units, got.seconds, s.unit)} (${got.seconds.toFixed(1)} s, ${got.chunks} chunks, ${(got.chunks / got.seconds).toFixed(0)} chunks/s); ` +
          `worker peak ${got.peakMiB.toFixed(0)} MiB (fresh worker, settled at ${got.beforeMiB.toFixed(0)} MiB: +${(got.peakMiB - got.beforeMiB).toFixed(0)} MiB)`,
        ratio: raw.seconds / got.seconds,
        target: 'reported (throughput)',
        met: null,
      });
      console.log(rows.at(-1));
      const steps = await breakdown(b, got);
      console.log(steps);
      rows.push({
        name: `ingest ${s.label}: where the time goes`,
        baseline: `${got.chunks} chunks, ${got.seconds.toFixed(1)} s upload → ready`,
        measured: steps,
        ratio: Number.NaN,
        target: s === samples[2] && hashing ? 'upload → ready < 60 s (issue 21)' : 'reported',
        met: s === samples[2] && hashing ? got.seconds < 60 : null,
      });
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
