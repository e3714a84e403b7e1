/**
 * Lists at the size: 10,000 contracts of the organization plus 10,000 of another,
 * 10,000 activity events, 1,000 webhook deliveries and 300 vendors, through the full API (in
 * this process) with autocannon, against the absolute targets of issue 21:
 * - `GET /contracts?page=1&page_size=20` at 10 connections: ≥ 150 req/s, p99 ≤ 150 ms;
 * - with a status filter and a search, 10 connections: ≥ 80 req/s;
 * - every list endpoint at 1 connection: p50 ≤ 50 ms.
 * Baseline: the bare query of the same page straight through mongoose (find, sort, limit and
 * count on the store, no API and no list index), 1 connection, as before the list index.
 *   source .stack/stack.env && node --import tsx bench/lists.ts [seconds per run]
 */
import { Types } from 'mongoose';
import autocannon from 'autocannon';
import { containsText } from '../platform/text-search';
import { Contract } from '../models/contract';
import { Event } from '../models/event';
import { Vendor } from '../models/vendor';
import { WebhookDelivery } from '../models/webhook-delivery';
import { writeResult, type BenchRow } from './report';
import { closeBench, listenApi, loadNow, openBench, percentile, registerUser, runBench } from './support';

const SECONDS = Number(process.argv[2] ?? 5);
const CONTRACTS = 10_000;

async function load(url: string, connections: number, token: string) {
  const result = await autocannon({ url, connections, duration: SECONDS, timeout: 60, headers: { authorization: `Bearer ${token}` } });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${url}: ${bad} failed requests of ${result.requests.total}`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, done: result.requests.total };
}

/** A run's figures; autocannon reports zeros when no request finished within the window. */
const figures = (r: Awaited<ReturnType<typeof load>>) =>
  r.done ? `${r.rps.toFixed(1)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${r.done} done` : `no request finished within ${SECONDS} s (`;

/** The bare page: the same query the list ran on the store before the list index, timed `runs` times one after another. */
async function barePage(filter: Record<string, unknown>, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await Promise.all([
      Contract.find(filter, { content: 0 }).sort({ created_at: -1, _id: -1 }).limit(20).lean(),
      Contract.countDocuments(filter),
    ]);
    times.push(performance.now() - t0);
  }
  return times;
}

async function main() {
  const b = await openBench('lists');
  const api = await listenApi(b);
  try {
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl);
    const orgId = new Types.ObjectId(user.organizationId);
    const userId = new Types.ObjectId(user.userId);
    const statuses = ['draft', 'active', 'completed', 'expired'];
    for (const org of [orgId, new Types.ObjectId()]) {
      for (let i = 0; i < CONTRACTS; i += 1000) {
        await Contract.insertMany(
          Array.from({ length: 1000 }, (_, j) => ({
            organization_id: org,
            title: `${(i + j) % 40 === 0 ? 'Harbour crane' : 'Supply'} agreement ${i + j}`,
            type: 'service_agreement',
            status: statuses[(i + j) % 4],
            counterparty: `Counterparty ${(i + j) % 50}`,
            content: 'Terms. '.repeat(200),
            created_by: userId,
          })),
        );
      }
    }
    for (let i = 0; i < 10_000; i += 1000) {
      await Event.insertMany(
        Array.from({ length: 1000 }, (_, j) => ({
          organization_id: orgId,
          type: 'contract.updated',
          data: { n: i + j },
          actor: { type: 'user', id: user.userId },
          resource_type: 'contract',
          resource_id: new Types.ObjectId().toHexString(),
          summary: `Contract ${i + j} updated`,
          occurred_at: new Date(Date.now() - (i + j) * 1000),
          relayed_at: new Date(),
        })),
      );
    }
    await WebhookDelivery.insertMany(
      Array.from({ length: 1000 }, (_, i) => ({
        organization_id: orgId,
        subscription_id: new Types.ObjectId(),
        event_id: new Types.ObjectId(),
        event: 'contract.created',
        body: '{}',
        status: i % 3 ? 'delivered' : 'failed',
      })),
    );
    await Vendor.insertMany(Array.from({ length: 300 }, (_, i) => ({ organization_id: orgId, name: `Vendor ${i}` })));

    const page = '/contracts?page=1&page_size=20';
    const search = '/contracts?status=active&search=harbour';
    // The first read of each list builds its index; that is not what is measured.
    const lists = [
      page,
      search,
      '/vendors',
      '/documents',
      '/signatures',
      '/compliance/tasks',
      '/webhooks/deliveries',
      '/analytics/activity',
    ];
    for (const path of lists) {
      const res = await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${user.token}` } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    }
    await new Promise((r) => setTimeout(r, 2000));

    const bareAll = await barePage({ organization_id: orgId }, 5);
    const bareSearch = await barePage(
      { organization_id: orgId, status: 'active', $or: [{ title: containsText('harbour') }, { counterparty: containsText('harbour') }] },
      5,
    );
    const bareLine = (t: number[]) =>
      `bare query, 1 connection: p50 ${percentile(t, 50).toFixed(0)} ms (${(1000 / percentile(t, 50)).toFixed(1)} req/s)`;
    const rows: BenchRow[] = [];

    const at10 = await load(`${apiUrl}${page}`, 10, user.token);
    rows.push({
      name: `GET ${page} @10, ${CONTRACTS.toLocaleString('en-US')} contracts (+${CONTRACTS.toLocaleString('en-US')} of another organization)`,
      baseline: bareLine(bareAll),
      measured: `${figures(at10)}; load average ${loadNow()})`,
      ratio: at10.rps / (1000 / percentile(bareAll, 50)),
      target: '≥ 150 req/s, p99 ≤ 150 ms',
      met: at10.done > 0 && at10.rps >= 150 && at10.p99 <= 150,
    });
    const search10 = await load(`${apiUrl}${search}`, 10, user.token);
    rows.push({
      name: `GET ${search} @10`,
      baseline: bareLine(bareSearch),
      measured: `${figures(search10)}; load average ${loadNow()})`,
      ratio: search10.rps / (1000 / percentile(bareSearch, 50)),
      target: '≥ 80 req/s',
      met: search10.done > 0 && search10.rps >= 80,
    });
    for (const path of lists) {
      const one = await load(`${apiUrl}${path}`, 1, user.token);
      rows.push({
        name: `GET ${path} @1`,
        baseline: path === page ? bareLine(bareAll) : path === search ? bareLine(bareSearch) : '—',
        measured: `${figures(one)}; load average ${loadNow()})`,
        ratio: path === page ? one.p50 / percentile(bareAll, 50) : path === search ? one.p50 / percentile(bareSearch, 50) : Number.NaN,
        target: 'p50 ≤ 50 ms',
        met: one.done > 0 && one.p50 <= 50,
      });
      console.log(rows.at(-1));
    }
    writeResult('lists', rows);
  } finally {
    await api.close();
    await closeBench(b);
  }
}

runBench(main);
