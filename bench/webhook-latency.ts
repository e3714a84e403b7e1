/**
 * Event to first webhook delivery: contracts created through the API (its own process,
 * which relays each event as it records it) reach a subscribed local receiver through a
 * delivery workflow run by a worker in a process of its own, as deployed. Every created
 * contract also starts its contract re-index workflow on the same worker.
 * - burst: N events (default 1,000) created as fast as the API answers, 10 in flight;
 * - paced: events one at a time, each waiting for its delivery (latency with no backlog);
 * both against a bare baseline measured in the same run: this process POSTing the same
 * bodies straight to the same kind of receiver, 10 in flight.
 * Latency runs from the event's `occurred_at` to the receiver's arrival time (one clock).
 * Diagnostics (printed, not in the table): the relay's share, and from sampled workflow
 * histories how long workflow and activity tasks waited for the worker.
 *   source .stack/stack.env && node --import tsx bench/webhook-latency.ts [burst N] [paced N]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import mongoose, { trusted } from 'mongoose';
import { temporal } from '@temporalio/proto';
import { freePort, repoRoot, startApiProcess, startTemporalDevServer, startWorkerProcess } from '../test/support/processes';
import { startReceiver, type Received } from '../test/support/receiver';
import { Event } from '../models/event';
import { WebhookDelivery } from '../models/webhook-delivery';
import { writeResult, type BenchRow } from './report';
import { loadavg, tmpdir } from 'node:os';
import {
  closeBench,
  cpuMeter,
  enginePids,
  latencies,
  openBench,
  percentile,
  registerUser,
  runBench,
  waitForWorker,
  type Bench,
} from './support';

const BURST = Number(process.argv[2] ?? 1000);
const PACED = Number(process.argv[3] ?? 50);
const IN_FLIGHT = 10;
const DRAIN_TIMEOUT_MS = 15 * 60_000;

/** Runs `count` jobs, `inFlight` at a time. */
async function pool(count: number, inFlight: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}

/** Creates a contract; null when the API answered 5xx (counted and reported, not retried). */
async function createContract(apiUrl: string, token: string, i: number): Promise<string | null> {
  const res = await fetch(`${apiUrl}/contracts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Latency ${i}`, type: 'nda', counterparty: 'Bench Ltd' }),
  });
  const body = (await res.json()) as { id: string };
  if (res.status >= 500) return null;
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** The bare baseline: the same bodies POSTed straight to a receiver; milliseconds to arrival, and for all. */
async function directPosts(bodies: readonly string[]): Promise<{ each: number[]; allMs: number }> {
  const receiver = await startReceiver(() => 200);
  const sentAt: number[] = [];
  const t0 = Date.now();
  await pool(bodies.length, IN_FLIGHT, async (i) => {
    sentAt[i] = Date.now();
    const res = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bench-index': String(i) },
      body: bodies[i],
    });
    await res.arrayBuffer();
  });
  const received = await receiver.waitFor(bodies.length);
  const allMs = Date.now() - t0;
  await receiver.close();
  return { each: received.map((r) => r.at - sentAt[Number(r.headers['x-bench-index'])]!), allMs };
}

/** Milliseconds from each event's occurred_at to its delivery's arrival, and the relay's share. */
async function eventLatencies(received: readonly Received[]) {
  const arrived = new Map(received.map((r) => [(JSON.parse(r.body) as { data: { id: string } }).data.id, r.at]));
  const events = await Event.find({ type: 'contract.created', resource_id: trusted({ $in: [...arrived.keys()] }) }).lean();
  const relayedAt = new Map(
    (await WebhookDelivery.find({ event_id: trusted({ $in: events.map((e) => e._id) }) }, { event_id: 1, created_at: 1 }).lean()).map(
      (d) => [d.event_id.toHexString(), (d as unknown as { created_at: Date }).created_at.getTime()],
    ),
  );
  const total = events.map((e) => arrived.get(e.resource_id)! - e.occurred_at.getTime());
  const relay = events.map((e) => relayedAt.get(e._id.toHexString())! - e.occurred_at.getTime());
  return { total, relay, eventIds: events.map((e) => e._id.toHexString()) };
}

/**
 * From sampled delivery workflow histories: per workflow, how many workflow tasks and
 * activity tasks it took and how many local activities ran; how long workflow tasks waited
 * for the worker (schedule to start) and ran (start to completion), and how long activity
 * tasks waited for a slot.
 */
async function taskWaits(b: Bench, workflowIds: readonly string[]) {
  const T = temporal.api.enums.v1.EventType;
  const wftWait: number[] = [];
  const wftRun: number[] = [];
  const activityWait: number[] = [];
  const perWorkflow = { workflowTasks: 0, activityTasks: 0, localActivities: 0, historyEvents: 0 };
  for (const id of workflowIds) {
    const history = await b.services.temporal.workflow.getHandle(id).fetchHistory();
    const at = (e: temporal.api.history.v1.IHistoryEvent) =>
      Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
    const events = history.events ?? [];
    perWorkflow.historyEvents += events.length;
    let scheduled: number | undefined;
    let started: number | undefined;
    let activityScheduled: number | undefined;
    for (const e of events) {
      if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) scheduled = at(e);
      if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        started = at(e);
        if (scheduled !== undefined) wftWait.push(started - scheduled);
      }
      if (e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && started !== undefined) {
        wftRun.push(at(e) - started);
        perWorkflow.workflowTasks++;
      }
      if (e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        activityScheduled = at(e);
        perWorkflow.activityTasks++;
      }
      if (e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_STARTED && activityScheduled !== undefined)
        activityWait.push(at(e) - activityScheduled);
      if (e.eventType === T.EVENT_TYPE_MARKER_RECORDED) perWorkflow.localActivities++;
    }
  }
  const per = (n: number) => Number((n / Math.max(1, workflowIds.length)).toFixed(2));
  return {
    wftWait,
    wftRun,
    activityWait,
    perWorkflow: {
      workflow_tasks: per(perWorkflow.workflowTasks),
      activity_tasks: per(perWorkflow.activityTasks),
      local_activities: per(perWorkflow.localActivities),
      history_events: per(perWorkflow.historyEvents),
    },
  };
}

/** PostgreSQL's row counters of the run's database (FerretDB keeps each database in a schema of its own). */
type StoreCounters = Record<string, { inserted: number; updated: number; scans: number }>;
function storeCounters(database: string): StoreCounters {
  const bin = readdirSync('/usr/lib/postgresql')
    .sort()
    .map((v) => `/usr/lib/postgresql/${v}/bin/psql`)
    .filter((f) => existsSync(f))
    .at(-1);
  if (!bin) return {};
  // Statistics reach the views up to a second after the transactions that made them.
  execFileSync('sleep', ['1.5']);
  const out = execFileSync(
    bin,
    [
      '-h',
      path.join(repoRoot, '.stack/run'),
      '-U',
      'ferretdb',
      '-d',
      'ferretdb',
      '-tAF',
      '\t',
      '-c',
      `select relname, n_tup_ins, n_tup_upd, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) from pg_stat_user_tables where schemaname = '${database.toLowerCase()}'`,
    ],
    { encoding: 'utf8' },
  );
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [table, ins, upd, scans] = line.split('\t');
        // FerretDB names a collection's table <collection>_<hash>.
        return [table!.replace(/_[0-9a-f]{8}$/, ''), { inserted: Number(ins), updated: Number(upd), scans: Number(scans) }];
      }),
  );
}

/** Store rows written and queries answered per delivery, by collection, between two counter readings. */
function storePerDelivery(before: StoreCounters, after: StoreCounters, deliveries: number): Record<string, string> {
  const per = (n: number) => (n / deliveries).toFixed(2);
  const rows: Record<string, string> = {};
  for (const [table, a] of Object.entries(after)) {
    const b = before[table] ?? { inserted: 0, updated: 0, scans: 0 };
    if (a.inserted === b.inserted && a.updated === b.updated && a.scans === b.scans) continue;
    rows[table] = `${per(a.inserted - b.inserted)} inserted, ${per(a.updated - b.updated)} updated, ${per(a.scans - b.scans)} queries`;
  }
  return rows;
}

/**
 * BENCH_OWN_TEMPORAL=<pragmas>: the run gets a fresh dev server of its own with these SQLite
 * settings (comma-separated, e.g. `journal_mode=wal,synchronous=off`; `default` for none), to
 * compare settings on equal terms; otherwise the shared one.
 */
async function ownTemporal() {
  const pragmas = process.env.BENCH_OWN_TEMPORAL;
  if (!pragmas) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-temporal-'));
  const port = await freePort();
  const server = await startTemporalDevServer(port, path.join(dir, 'temporal.db'), pragmas === 'default' ? [] : pragmas.split(','));
  return {
    pid: server.pid,
    overrides: { TEMPORAL_ADDRESS: server.url },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const own = await ownTemporal();
  const b = await openBench('webhooks', own?.overrides);
  const api = await startApiProcess(b.env);
  const worker = startWorkerProcess(b.env);
  const receiver = await startReceiver(() => 200);
  try {
    await waitForWorker(b);
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl);
    const sub = await fetch(`${apiUrl}/webhooks/subscribe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['contract.created'], secret: 'latency-secret-0123456789' }),
    });
    if (sub.status !== 201) throw new Error(`subscribe: ${sub.status} ${await sub.text()}`);

    // Paced first, while the queue is empty: one event at a time, each waits for its delivery.
    let created = 0;
    let serverErrors = 0;
    for (let i = 0; i < PACED; i++) {
      if (!(await createContract(apiUrl, user.token, i))) serverErrors++;
      else await receiver.waitFor(++created, 60_000);
    }
    const pacedCount = receiver.received.length;
    const paced = await eventLatencies(receiver.received);

    // Burst: as fast as the API answers.
    const cpu = cpuMeter({ ...enginePids(), ...(own ? { temporal: own.pid } : {}), api: api.pid, worker: worker.pid });
    const database = mongoose.connection.db!.databaseName;
    const storeBefore = storeCounters(database);
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const b0 = Date.now();
    await pool(BURST, IN_FLIGHT, async (i) => {
      if (await createContract(apiUrl, user.token, PACED + i)) created++;
      else serverErrors++;
    });
    const createdIn = Date.now() - b0;
    await receiver.waitFor(created, DRAIN_TIMEOUT_MS);
    const drainedIn = Date.now() - b0;
    const burstCpu = cpu();
    const store = storePerDelivery(storeBefore, storeCounters(database), BURST);
    const burst = await eventLatencies(receiver.received.slice(pacedCount));
    // At least once overall, but never twice in one attempt: every receiver 200s, so one arrival per delivery.
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    const duplicates = ids.length - new Set(ids).size;

    const { each: bare, allMs: bareAllMs } = await directPosts(receiver.received.slice(pacedCount).map((r) => r.body));
    const bareLine = `direct POST ${latencies(bare)}`;
    const sample = await WebhookDelivery.find(
      { event_id: trusted({ $in: burst.eventIds.filter((_, i) => i % Math.ceil(BURST / 100) === 0) }) },
      { workflow_id: 1 },
    ).lean();
    const waits = await taskWaits(b, [...new Set(sample.map((d) => d.workflow_id!))]);
    console.log({
      load_average_at_start: load,
      burst: {
        created_in_ms: createdIn,
        drained_in_ms: drainedIn,
        duplicates,
        cpu_seconds: burstCpu,
        relay: latencies(burst.relay),
        after_relay: latencies(burst.total.map((t, i) => t - burst.relay[i]!)),
      },
      store_per_delivery: store,
      sampled_delivery_workflows: {
        count: sample.length,
        per_workflow: waits.perWorkflow,
        workflow_task_wait: latencies(waits.wftWait, [50, 95, 100]),
        workflow_task_run: latencies(waits.wftRun, [50, 95, 100]),
        activity_wait: latencies(waits.activityWait, [50, 95, 100]),
      },
      paced: { relay: latencies(paced.relay), after_relay: latencies(paced.total.map((t, i) => t - paced.relay[i]!)) },
    });
    const p95 = percentile(burst.total, 95);
    const context =
      `load average ${load}; created in ${(createdIn / 1000).toFixed(1)} s` +
      (duplicates ? `; ${duplicates} delivered twice` : '') +
      (serverErrors ? `; ${serverErrors} creates answered 5xx (store busy), not counted` : '');
    const rows: BenchRow[] = [
      {
        name: `event → first attempt, burst of ${BURST.toLocaleString('en-US')}`,
        baseline: bareLine,
        measured: `${latencies(burst.total)} (${context})`,
        ratio: p95 / percentile(bare, 95),
        target: 'p95 ≤ 10 s',
        met: p95 <= 10_000 && !duplicates,
      },
      {
        name: `burst of ${BURST.toLocaleString('en-US')}: all delivered`,
        baseline: `direct POSTs: all in ${(bareAllMs / 1000).toFixed(1)} s`,
        measured: `${(drainedIn / 1000).toFixed(1)} s from the first create (${context})`,
        ratio: drainedIn / bareAllMs,
        target: '≤ 20 s',
        met: drainedIn <= 20_000 && !duplicates,
      },
      {
        name: `event → first delivery, ${PACED} paced`,
        baseline: bareLine,
        measured: latencies(paced.total),
        ratio: percentile(paced.total, 50) / percentile(bare, 50),
        target: 'reported (median, p95)',
        met: null,
      },
    ];
    writeResult('webhook-latency', rows);
  } finally {
    await receiver.close();
    await worker.stop();
    await api.stop();
    await closeBench(b);
    await own?.stop();
  }
}

runBench(main);
