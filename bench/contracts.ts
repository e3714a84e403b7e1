/**
 * Contract list and create under load: the full API (auth, rate limits, RBAC, validation,
 * idempotency) against a bare Express + mongoose handler running the same queries with no
 * middleware, both in this process on the same engines, measured with autocannon at 10, 50
 * and 200 connections, the bare handler once before and once after the API (their mean is
 * the baseline). Prints a ratio table (API ÷ bare).
 * The bare create writes what the route writes, the contract and its outbox event (which
 * this process's relay hands to its consumers as it does the API's), so the ratio is the
 * middleware's; a second bare create inserts the contract alone, to show what the outbox
 * and its relay cost (reported, no target).
 *   source .stack/stack.env && node --import tsx bench/contracts.ts [seconds per run]
 * Uses its own database and removes it afterwards.
 */
import express from 'express';
import { Types } from 'mongoose';
import autocannon from 'autocannon';
import { containsText } from '../platform/text-search';
import { emitContractEvent } from '../services/contracts/contract-events';
import type { EventRecorder } from '../platform/outbox/record-event';
import type { Principal } from '../platform/security/principal';
import { startRelayLoop } from '../services/wiring';
import { CONTRACT_STATUSES, Contract, contractListItem, contractView } from '../models/contract';
import { Event } from '../models/event';
import { writeResult, type BenchRow } from './report';
import { closeBench, listen, listenApi, openBench, registerUser, runBench } from './support';

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = [10, 50, 200];

/** The same queries as api/routes/contracts.ts, without any middleware. */
function bareApp(services: EventRecorder, principal: Principal): express.Express {
  const organizationId = new Types.ObjectId(principal.organizationId);
  const userId = new Types.ObjectId(principal.userId);
  const app = express();
  app.use(express.json());
  app.get('/contracts', async (req, res) => {
    const status = CONTRACT_STATUSES.find((x) => x === req.query.status);
    const search = typeof req.query.search === 'string' ? req.query.search : undefined;
    const filter = {
      organization_id: organizationId,
      ...(status ? { status } : {}),
      ...(search ? { $or: [{ title: containsText(search) }, { counterparty: containsText(search) }] } : {}),
    };
    const [items, total] = await Promise.all([
      Contract.find(filter).sort({ created_at: -1, _id: -1 }).limit(20),
      Contract.countDocuments(filter),
    ]);
    res.json({ contracts: items.map(contractListItem), total, page: 1, page_size: 20 });
  });
  const create = (withEvent: boolean) => async (req: express.Request, res: express.Response) => {
    const body = req.body as { title: string; type: string; counterparty: string };
    const contract = await Contract.create({ ...body, organization_id: organizationId, status: 'draft', created_by: userId });
    if (withEvent) await emitContractEvent(services, principal, 'contract.created', contract, `Contract "${contract.title}" created`);
    res.status(201).json(contractView(contract));
  };
  app.post('/contracts', create(true));
  app.post('/contracts-insert-only', create(false));
  return app;
}

async function load(url: string, connections: number, opts: { method?: 'GET' | 'POST'; token?: string; body?: string }) {
  const method = opts.method ?? 'GET';
  const headers = { 'content-type': 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) };
  const result = await autocannon({
    url,
    connections,
    duration: SECONDS,
    timeout: 60,
    method,
    headers,
    ...(opts.body ? { body: opts.body } : {}),
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${url}: ${bad} failed requests of ${result.requests.total}`);
  // Requests the window cut off still run on the server; the next run must not start
  // behind them. One more request queues behind that backlog and answers once it is done.
  await fetch(url, { method, headers, body: opts.body }).then((r) => r.arrayBuffer());
  // Nor behind the relay of the events this run recorded (it runs after each response;
  // what it could not hand over in time, the catch-up loop retries, as the worker's does).
  const until = Date.now() + 120_000;
  while ((await Event.countDocuments({ relayed_at: null })) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, done: result.requests.total };
}

async function main() {
  const b = await openBench('contracts');
  const api = await listenApi(b);
  const relayLoop = startRelayLoop(b.services);
  try {
    const user = await registerUser(`${api.url}/api/v1`);
    const orgId = new Types.ObjectId(user.organizationId);
    const userId = new Types.ObjectId(user.userId);
    const principal: Principal = {
      kind: 'user',
      id: user.userId,
      userId: user.userId,
      organizationId: user.organizationId,
      role: 'owner',
      name: 'Bench',
    };
    // 1,000 contracts of the organization and 1,000 of another one, in four statuses.
    const statuses = ['draft', 'active', 'completed', 'expired'];
    for (const org of [orgId, new Types.ObjectId()]) {
      await Contract.insertMany(
        Array.from({ length: 1000 }, (_, i) => ({
          organization_id: org,
          title: `${i % 10 === 0 ? 'Harbour crane' : 'Supply'} agreement ${i}`,
          type: 'service_agreement',
          status: statuses[i % 4],
          counterparty: `Counterparty ${i % 50}`,
          content: 'Terms.',
          created_by: userId,
        })),
      );
    }
    const bare = await listen(bareApp(b.services, principal));
    const createBody = JSON.stringify({ title: 'Bench contract', type: 'nda', counterparty: 'Bench Ltd' });
    const scenarios = [
      { name: 'list page of 20', path: '/contracts' },
      { name: 'list filter + search', path: '/contracts?status=active&search=harbour' },
      { name: 'create', path: '/contracts', method: 'POST' as const, body: createBody },
      {
        name: 'create vs a bare insert without outbox event',
        path: '/contracts',
        barePath: '/contracts-insert-only',
        method: 'POST' as const,
        body: createBody,
        reportOnly: true,
      },
    ];
    const rows: BenchRow[] = [];
    for (const sc of scenarios) {
      for (const connections of CONNECTIONS) {
        // Bare runs before and after the API's: creates grow the collections the next run
        // works on, so a single bare-first run would favour the baseline.
        const before = await load(`${bare.url}${sc.barePath ?? sc.path}`, connections, sc);
        const a = await load(`${api.url}/api/v1${sc.path}`, connections, { ...sc, token: user.token });
        const after = await load(`${bare.url}${sc.barePath ?? sc.path}`, connections, sc);
        const b = {
          rps: (before.rps + after.rps) / 2,
          p50: (before.p50 + after.p50) / 2,
          p99: (before.p99 + after.p99) / 2,
          done: before.done + after.done,
        };
        rows.push({
          name: `${sc.name} @${connections}`,
          baseline: `${b.rps.toFixed(1)} req/s (${before.rps.toFixed(1)} before, ${after.rps.toFixed(1)} after), p50 ${b.p50} ms, p99 ${b.p99} ms (${b.done} done)`,
          measured: `${a.rps.toFixed(1)} req/s, p50 ${a.p50} ms, p99 ${a.p99} ms (${a.done} done)`,
          ratio: a.rps / b.rps,
          target: sc.reportOnly ? 'reported' : 'throughput ≥ 0.75 × bare',
          // No bare request finished within the window (the store's queue is longer): no ratio.
          met: sc.reportOnly || !b.done ? null : a.rps / b.rps >= 0.75,
        });
        console.log(rows.at(-1));
      }
    }
    await bare.close();
    writeResult('contracts', rows);
  } finally {
    // Creates started contract-index workflows on this run's task queue, which no worker
    // polls: closeBench terminates them with the rest of the run's data.
    await relayLoop.stop();
    await api.close();
    await closeBench(b);
  }
}

runBench(main);
