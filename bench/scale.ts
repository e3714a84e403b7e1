/**
 * Scale-out on one machine: two API processes and worker processes against the same engines.
 * - Webhooks: a burst of N contract creates spread over both APIs, delivered to a local
 *   receiver, first with one worker, then again after a second worker joined; deliveries per
 *   second for each, and every delivery must arrive exactly once (one attempt each).
 * - Ingestion: D text documents uploaded at once through both APIs, ingested with one
 *   worker, then D more with two; chunks per second for each.
 * - Rate limits: two more API processes with the default limit of 60 per minute; 100
 *   requests of one user alternate between them, and exactly 60 must pass (the counters
 *   are in Redis, shared by every API process).
 *   source .stack/stack.env && RUN_COMPILED=1 node --import tsx bench/scale.ts [events] [documents] [MB each]
 */
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiProcess, startWorkerProcess } from '../test/support/processes';
import { startReceiver } from '../test/support/receiver';
import { writeTextFile } from './fixtures';
import { writeResult, type BenchRow } from './report';
import { closeBench, cpuMeter, enginePids, loadNow, openBench, registerUser, runBench, waitForWorker, type Bench } from './support';

const EVENTS = Number(process.argv[2] ?? 300);
const DOCUMENTS = Number(process.argv[3] ?? 4);
const DOCUMENT_MB = Number(process.argv[4] ?? 2);
const IN_FLIGHT = 10;

async function pool(count: number, inFlight: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}

const post = async (url: string, token: string, body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`${url}: ${res.status}`);
};

/** N contract creates spread over the APIs; seconds until the receiver has them all. */
async function webhookBurst(apis: string[], token: string, receiver: Awaited<ReturnType<typeof startReceiver>>, label: string) {
  const before = receiver.received.length;
  const t0 = Date.now();
  await pool(EVENTS, IN_FLIGHT, (i) =>
    post(`${apis[i % apis.length]}/contracts`, token, { title: `Scale ${label} ${i}`, type: 'nda', counterparty: 'Scale Ltd' }),
  );
  await receiver.waitFor(before + EVENTS, 15 * 60_000);
  return (Date.now() - t0) / 1000;
}

/** D documents uploaded at once over the APIs; seconds until all are ready, and their chunks. */
async function ingestBatch(b: Bench, apis: string[], token: string, files: string[]) {
  const t0 = Date.now();
  const ids = await Promise.all(
    files.map(async (file, i) => {
      const form = new FormData();
      form.append('file', await openAsBlob(file, { type: 'text/plain' }), path.basename(file));
      form.append('category', 'other');
      const res = await fetch(`${apis[i % apis.length]}/documents/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const doc = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`upload: ${res.status}`);
      return doc.id;
    }),
  );
  await Promise.all(ids.map((id) => b.services.temporal.workflow.getHandle(`ingest-${id}`).result()));
  const seconds = (Date.now() - t0) / 1000;
  let chunks = 0;
  for (const id of ids) {
    const res = await fetch(`${apis[0]}/documents/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const doc = (await res.json()) as { status: string; chunk_count: number };
    if (doc.status !== 'ready') throw new Error(`document ${id}: ${doc.status}`);
    chunks += doc.chunk_count;
  }
  return { seconds, chunks };
}

async function main() {
  const b = await openBench('scale');
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-scale-'));
  const apis = await Promise.all([startApiProcess(b.env), startApiProcess(b.env)]);
  const limited = await Promise.all([0, 1].map(() => startApiProcess({ ...b.env, RATE_LIMIT_DEFAULT_PER_MINUTE: '60' })));
  const workers = [startWorkerProcess(b.env)];
  const receiver = await startReceiver(() => 200);
  try {
    await waitForWorker(b, 120_000, workers[0]!.pid);
    const urls = apis.map((a) => `${a.url}/api/v1`);
    const user = await registerUser(urls[0]!);
    await post(`${urls[1]}/webhooks/subscribe`, user.token, {
      url: receiver.url,
      events: ['contract.created'],
      secret: 'scale-secret-0123456789',
    });
    const files = await Promise.all(
      Array.from({ length: 2 * DOCUMENTS }, async (_, i) => {
        const file = path.join(dir, `doc-${i}.txt`);
        await writeTextFile(file, DOCUMENT_MB * 1_000_000);
        return file;
      }),
    );

    const rows: BenchRow[] = [];
    const measure = async (n: number) => {
      const load = loadNow();
      const cpu = cpuMeter({ ...enginePids(), ...Object.fromEntries(workers.map((w, i) => [`worker${i + 1}`, w.pid])) });
      const webhookSeconds = await webhookBurst(urls, user.token, receiver, `w${n}`);
      const ingest = await ingestBatch(b, urls, user.token, files.slice((n - 1) * DOCUMENTS, n * DOCUMENTS));
      console.log({ workers: n, load, webhookSeconds, ingest, cpu: cpu() });
      return {
        load,
        deliveriesPerSecond: EVENTS / webhookSeconds,
        webhookSeconds,
        chunksPerSecond: ingest.chunks / ingest.seconds,
        ingest,
      };
    };
    const one = await measure(1);
    workers.push(startWorkerProcess(b.env));
    await waitForWorker(b, 120_000, workers[1]!.pid);
    const two = await measure(2);

    rows.push({
      name: `webhooks: ${EVENTS} events over 2 APIs, 1 → 2 workers`,
      baseline: `1 worker: ${one.deliveriesPerSecond.toFixed(1)} deliveries/s (${one.webhookSeconds.toFixed(1)} s; load average ${one.load})`,
      measured: `2 workers: ${two.deliveriesPerSecond.toFixed(1)} deliveries/s (${two.webhookSeconds.toFixed(1)} s; load average ${two.load})`,
      ratio: two.deliveriesPerSecond / one.deliveriesPerSecond,
      target: 'rises with the second worker',
      met: two.deliveriesPerSecond > one.deliveriesPerSecond,
    });
    rows.push({
      name: `ingestion: ${DOCUMENTS} × ${DOCUMENT_MB} MB TXT at once over 2 APIs, 1 → 2 workers`,
      baseline: `1 worker: ${one.chunksPerSecond.toFixed(0)} chunks/s (${one.ingest.chunks} chunks in ${one.ingest.seconds.toFixed(1)} s)`,
      measured: `2 workers: ${two.chunksPerSecond.toFixed(0)} chunks/s (${two.ingest.chunks} chunks in ${two.ingest.seconds.toFixed(1)} s)`,
      ratio: two.chunksPerSecond / one.chunksPerSecond,
      target: 'rises with the second worker',
      met: two.chunksPerSecond > one.chunksPerSecond,
    });

    // Each delivery arrives once: its webhook-id is never seen twice.
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    const duplicates = ids.length - new Set(ids).size;
    rows.push({
      name: `webhooks: deliveries arriving twice (${ids.length} arrivals, 2 workers in the second half)`,
      baseline: '0',
      measured: String(duplicates),
      ratio: Number.NaN,
      target: 'none',
      met: duplicates === 0 && ids.length === 2 * EVENTS,
    });

    // Rate limits across two API processes: one user, 100 requests alternating, limit 60/min.
    const limitedUrls = limited.map((a) => `${a.url}/api/v1`);
    const probe = await registerUser(urls[0]!, 'limits');
    const statuses: number[] = [];
    await pool(100, 10, async (i) => {
      const res = await fetch(`${limitedUrls[i % 2]}/contracts`, { headers: { authorization: `Bearer ${probe.token}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
    });
    const passed = statuses.filter((s) => s === 200).length;
    const limitedCount = statuses.filter((s) => s === 429).length;
    rows.push({
      name: 'rate limit 60/min, one user, 100 requests alternating over 2 API processes',
      baseline: '60 pass, 40 × 429',
      measured: `${passed} pass, ${limitedCount} × 429${passed + limitedCount < 100 ? `, ${100 - passed - limitedCount} other` : ''}`,
      ratio: passed / 60,
      target: 'exactly 60 pass',
      met: passed === 60 && limitedCount === 40,
    });
    writeResult('scale', rows);
  } finally {
    await receiver.close();
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([...apis, ...limited].map((a) => a.stop()));
    await closeBench(b);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
