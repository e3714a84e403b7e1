/**
 * The write path (issue 39), measured from outside: the API and the worker each in a process
 * of their own (compiled, as `npm start` runs them), this process the client.
 * - create and edit (`POST /contracts`, `PUT /contracts/:id`, a 400-character contract) at 1,
 *   20 and 100 in flight, against a bare baseline in the same run: the documents the create
 *   writes (contract, version, outbox event) or the edit writes (contract, event), written
 *   through the driver at the same concurrency. Targets at 20: ≥ 150/s, p99 ≤ 300 ms, and
 *   ≥ 0.5 × the baseline.
 * - a burst of N creates (default 1,000, 20 in flight) with a webhook subscribed: from the
 *   first create to the last first attempt at the receiver (target 20 s).
 * - an import of N rows (default 10,000) with texts under 10 KB: from `POST /imports` to
 *   `completed`, rows and key terms (target 2 minutes); the baseline inserts the same
 *   contracts with one insertMany per 1,000.
 *   source .stack/stack.env && node --import tsx bench/writes.ts [seconds per run] [burst N] [import rows]
 */
import { Types } from 'mongoose';
import { Contract } from '../models/contract';
import { ContractVersion } from '../models/contract-version';
import { Event } from '../models/event';
import { startApiProcess, startWorkerProcess } from '../test/support/processes';
import { startReceiver } from '../test/support/receiver';
import { writeResult, type BenchRow } from './report';
import { closeBench, loadNow, openBench, percentile, registerUser, runBench, waitForWorker } from './support';

const SECONDS = Number(process.argv[2] ?? 10);
const BURST = Number(process.argv[3] ?? 1000);
const IMPORT_ROWS = Number(process.argv[4] ?? 10_000);
const IN_FLIGHT = [1, 20, 100];
const TARGET = { rps: 150, p99: 300, ratio: 0.5, burstS: 20, importS: 120 };

const TEXT =
  'This Agreement is governed by the laws of the State of New York. It renews automatically for successive one-year ' +
  'terms unless either party gives notice of non-renewal at least 60 days before the end of the then-current term. ' +
  'Invoices are payable within 30 days. Liability of either party is capped at the fees paid in the prior twelve months.';
const body = (i: number) => ({ title: `Write ${i}`, type: 'service_agreement', counterparty: `Party ${i % 50}`, content: TEXT });

interface Run {
  rps: number;
  p50: number;
  p99: number;
  done: number;
}

/** Runs `op` from `inFlight` loops for SECONDS; throws on the first failure. */
async function pool(inFlight: number, op: (i: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await op(next++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const s = (performance.now() - start) / 1000;
  return { rps: latencies.length / s, p50: percentile(latencies, 50), p99: percentile(latencies, 99), done: latencies.length };
}

const fmt = (r: Run) => `${r.rps.toFixed(1)}/s, p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms (${r.done})`;

async function main() {
  const b = await openBench('writes');
  const api = await startApiProcess(b.env);
  const worker = startWorkerProcess(b.env);
  const receiver = await startReceiver();
  try {
    await waitForWorker(b, 120_000, worker.pid);
    const base = `${api.url}/api/v1`;
    const user = await registerUser(base, 'writes');
    const headers = { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, payload: unknown, status: number) => {
      const res = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(payload) });
      const text = await res.text();
      if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return text ? (JSON.parse(text) as { id: string }) : { id: '' };
    };
    const userId = new Types.ObjectId(user.userId);
    const bareOrg = new Types.ObjectId();
    /** What one create writes, as the driver inserts it. */
    const bareCreate = async (i: number) => {
      const contract = new Contract({ ...body(i), organization_id: bareOrg, status: 'draft', created_by: userId });
      await Contract.collection.insertOne(contract.toObject({ depopulate: true }));
      await ContractVersion.collection.insertOne(
        new ContractVersion({ contract_id: contract._id, number: 1, source: 'content', content: TEXT, sha256: 'x'.repeat(64) }).toObject(),
      );
      await Event.collection.insertOne(eventOf(contract._id, 'contract.created'));
    };
    const eventOf = (id: Types.ObjectId, type: string) =>
      new Event({
        organization_id: bareOrg,
        type,
        data: { id: id.toHexString() },
        actor: { type: 'user', id: user.userId },
        resource_type: 'contract',
        resource_id: id.toHexString(),
        summary: 'bare',
        occurred_at: new Date(),
        // Relayed already: the bare baseline hands nothing on.
        relayed_at: new Date(),
      }).toObject();

    const rows: BenchRow[] = [];
    const row = (name: string, bare: Run, measured: Run, at: number) => {
      const ratio = measured.rps / bare.rps;
      const targeted = at === 20;
      rows.push({
        name: `${name} @${at} (load ${loadNow()})`,
        baseline: fmt(bare),
        measured: fmt(measured),
        ratio,
        target: targeted ? `≥ ${TARGET.rps}/s, p99 ≤ ${TARGET.p99} ms, ≥ ${TARGET.ratio} × bare` : 'reported',
        met: targeted ? measured.rps >= TARGET.rps && measured.p99 <= TARGET.p99 && ratio >= TARGET.ratio : null,
      });
      console.log(rows.at(-1));
    };

    for (const at of IN_FLIGHT) {
      const bare = await pool(at, bareCreate);
      row('POST /contracts', bare, await pool(at, (i) => call('POST', '/contracts', body(i), 201).then(() => undefined)), at);
    }
    // Edits of 100 contracts in turn, each changing the title.
    const edited = await Promise.all(Array.from({ length: 100 }, (_, i) => call('POST', '/contracts', body(i), 201)));
    const bareIds = Array.from({ length: 100 }, () => new Types.ObjectId());
    await Contract.collection.insertMany(
      bareIds.map((_id, i) => new Contract({ ...body(i), _id, organization_id: bareOrg, status: 'draft', created_by: userId }).toObject()),
    );
    for (const at of IN_FLIGHT) {
      const bare = await pool(at, async (i) => {
        const id = bareIds[i % bareIds.length]!;
        await Contract.collection.updateOne({ _id: id }, { $set: { title: `Edited ${i}`, updated_at: new Date() } });
        await Event.collection.insertOne(eventOf(id, 'contract.updated'));
      });
      const measured = await pool(at, (i) =>
        call('PUT', `/contracts/${edited[i % edited.length]!.id}`, { title: `Edited ${i}` }, 200).then(() => undefined),
      );
      row('PUT /contracts/:id', bare, measured, at);
    }

    // The burst: every create's webhook, first attempt.
    await call('POST', '/webhooks/subscribe', { url: receiver.url, events: ['contract.created'], secret: 'writes-secret-0123456789' }, 201);
    const burstStart = performance.now();
    const startedAt = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = next++; i < BURST; i = next++) await call('POST', '/contracts', body(i), 201);
      }),
    );
    const createdS = (performance.now() - burstStart) / 1000;
    const firsts = new Map<string, number>();
    const deadline = Date.now() + 600_000;
    while (firsts.size < BURST && Date.now() < deadline) {
      for (const r of receiver.received)
        if (!firsts.has(String(r.headers['webhook-id']))) firsts.set(String(r.headers['webhook-id']), r.at);
      await new Promise((r) => setTimeout(r, 200));
    }
    const deliveredS = (Math.max(...firsts.values()) - startedAt) / 1000;
    rows.push({
      name: `burst of ${BURST} creates, 20 in flight: last first attempt after the first create (creates took ${createdS.toFixed(1)} s; load ${loadNow()})`,
      baseline: '-',
      measured: `${deliveredS.toFixed(1)} s (${firsts.size} of ${BURST} delivered)`,
      ratio: deliveredS / TARGET.burstS,
      target: `≤ ${TARGET.burstS} s`,
      met: firsts.size === BURST && deliveredS <= TARGET.burstS,
    });
    console.log(rows.at(-1));

    // The import: rows with texts, then their key terms.
    const importer = await registerUser(base, 'import');
    const csv = [
      'title,type,counterparty,content',
      ...Array.from({ length: IMPORT_ROWS }, (_, i) => `Imported ${i},service_agreement,Counterparty ${i % 500},"${TEXT} Reference ${i}."`),
    ].join('\n');
    const bareStart = performance.now();
    for (let i = 0; i < IMPORT_ROWS; i += 1000)
      await Contract.insertMany(
        Array.from({ length: Math.min(1000, IMPORT_ROWS - i) }, (_, j) => ({
          ...body(i + j),
          organization_id: bareOrg,
          created_by: userId,
        })),
      );
    const bareS = (performance.now() - bareStart) / 1000;
    const form = new FormData();
    form.append('records', new Blob([csv]), 'contracts.csv');
    const importStart = performance.now();
    const res = await fetch(`${base}/imports`, { method: 'POST', headers: { authorization: `Bearer ${importer.token}` }, body: form });
    const accepted = (await res.json()) as { id: string };
    if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${JSON.stringify(accepted)}`);
    type State = { status: string; phase?: string; rows: { done: number }; terms_extracted?: number };
    let state: State = { status: 'running', rows: { done: 0 } };
    let rowsS = 0;
    while (state.status === 'running' && performance.now() - importStart < 1_200_000) {
      await new Promise((r) => setTimeout(r, 500));
      state = (await (
        await fetch(`${base}/imports/${accepted.id}`, { headers: { authorization: `Bearer ${importer.token}` } })
      ).json()) as State;
      if (!rowsS && state.phase === 'terms') rowsS = (performance.now() - importStart) / 1000;
    }
    const importS = (performance.now() - importStart) / 1000;
    rows.push({
      name: `import of ${IMPORT_ROWS} rows with texts, rows and key terms (rows done after ${rowsS.toFixed(1)} s; ${state.terms_extracted ?? 0} terms; load ${loadNow()})`,
      baseline: `${bareS.toFixed(1)} s (insertMany)`,
      measured: `${importS.toFixed(1)} s, ${state.status}`,
      ratio: importS / bareS,
      target: `< ${TARGET.importS} s`,
      met: state.status === 'completed' && state.rows.done === IMPORT_ROWS && importS < TARGET.importS,
    });
    console.log(rows.at(-1));
    writeResult('writes', rows);
  } finally {
    await receiver.close();
    await worker.stop();
    await api.stop();
    await closeBench(b);
  }
}

runBench(main);
