/**
 * Repository search at 1,000 and 100,000 contracts of one organization (plus a tenth as many
 * in another), issue 31:
 * - a page of 20 from `GET /contracts` and `GET /search/contracts` with a filter and 3 facets,
 *   through HTTP with autocannon: p50 ≤ 50 ms at 1 connection, ≥ 150 req/s at 10;
 * - a page's cost at 100,000 within 1.5× of its cost at 1,000;
 * - a full rebuild of the index from the store (the reindex workflow's parts, run here
 *   without Temporal) under 5 minutes at 100,000;
 * - Elasticsearch's heap and disk per 10,000 contracts.
 * Baseline: Elasticsearch's own query time (`took`) of the same query, in the same run.
 * The store is bulk-loaded directly (no event, so nothing reflects it) for setup speed.
 *   source .stack/stack.env && node --import tsx bench/search.ts [sizes...]
 *
 * `substrings [total]` (issue 38): the contract list's substring search (`GET /contracts?search=`)
 * over an index of `total` contracts (default 100,000) shared by 10 organizations, as the old
 * leading wildcard over the keyword terms and as the phrase of 3-grams (substrings.ts), the two
 * interleaved on the same index with a new search string each time (no cache answers). The
 * documents are written to Elasticsearch directly: only the query is measured.
 *   source .stack/stack.env && node --import tsx bench/search.ts substrings [total]
 */
import { Types } from 'mongoose';
import autocannon from 'autocannon';
import { Contract } from '../models/contract';
import { ContractTerms } from '../models/contract-terms';
import { rebuildSearchPart } from '../services/search/rebuild-search-index';
import type { estypes } from '@elastic/elasticsearch';
import { ensureSearchIndex, generationIndex, searchAlias, writeSearchDocs } from '../services/search/contract-search-index';
import { substringGrams } from '../services/search/substrings';
import { facetAggs, scopedQuery, sortOf } from '../services/search/contract-search-query';
import { writeResult, type BenchRow } from './report';
import { closeBench, listenApi, loadNow, ms, openBench, percentile, registerUser, runBench } from './support';

const SUBSTRINGS = process.argv[2] === 'substrings';
const SIZES = process.argv.slice(2).length && !SUBSTRINGS ? process.argv.slice(2).map(Number) : [1_000, 100_000];
const SECONDS = 5;
const WARM_UP_SECONDS = 3;
const LAWS = ['New York', 'Delaware', 'California', 'England and Wales', 'Texas'];
const STATUSES = ['draft', 'active', 'completed', 'expired'];

async function load(url: string, connections: number, token: string, duration = SECONDS) {
  const r = await autocannon({ url, connections, duration, timeout: 60, headers: { authorization: `Bearer ${token}` } });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) throw new Error(`${url}: ${bad} failed requests of ${r.requests.total}`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function bulkLoad(org: Types.ObjectId, count: number, userId: Types.ObjectId) {
  const day = 86_400_000;
  for (let i = 0; i < count; i += 1000) {
    const n = Math.min(1000, count - i);
    const contracts = await Contract.insertMany(
      Array.from({ length: n }, (_, j) => ({
        organization_id: org,
        title: `${(i + j) % 40 === 0 ? 'Harbour crane' : 'Supply'} agreement ${i + j}`,
        type: (i + j) % 3 ? 'service_agreement' : 'nda',
        status: STATUSES[(i + j) % 4],
        counterparty: `Counterparty ${(i + j) % 50}`,
        content: `Terms of supply ${i + j}. The supplier keeps data in the EU. `.repeat(10),
        value: ((i + j) % 100) * 1000,
        end_date: new Date(Date.now() + (((i + j) % 400) - 50) * day),
        created_by: userId,
      })),
      { lean: true },
    );
    await ContractTerms.insertMany(
      contracts.map((c, j) => ({
        organization_id: org,
        contract_id: c._id,
        terms: {
          governing_law: { normalized: LAWS[(i + j) % LAWS.length] },
          auto_renewal: { normalized: (i + j) % 2 === 0 },
          payment_terms: { normalized: 30 },
        },
        opt_out_deadline: new Date(Date.now() + (((i + j) % 400) - 80) * day).toISOString().slice(0, 10),
      })),
      { lean: true },
    );
  }
}

const WORDS = ['harbour', 'crane', 'supply', 'service', 'lease', 'licence', 'maintenance', 'logistics', 'consulting', 'hosting'];

/** The list's search before issue 38: a leading wildcard over the keyword terms of the whole index. */
const oldContains = (organizationId: string, text: string): estypes.QueryDslQueryContainer => ({
  bool: {
    filter: [
      { term: { organization_id: organizationId } },
      {
        bool: {
          should: ['title.raw', 'counterparty.raw'].map((field) => ({
            wildcard: { [field]: { value: `*${text.toLowerCase().replace(/[\\*?]/g, '\\$&')}*` } },
          })),
          minimum_should_match: 1,
        },
      },
    ],
  },
});

async function substringCost(total: number): Promise<BenchRow[]> {
  const b = await openBench('search');
  const s = b.services;
  try {
    await ensureSearchIndex(s);
    const orgs = Array.from({ length: 10 }, () => new Types.ObjectId().toHexString());
    const t0 = performance.now();
    for (let i = 0; i < total; i += 2000) {
      const docs = Array.from({ length: Math.min(2000, total - i) }, (_, j) => {
        const n = i + j;
        const title = `${WORDS[n % 10]} ${WORDS[Math.floor(n / 10) % 10]} agreement ${n}`;
        const counterparty = `${WORDS[Math.floor(n / 100) % 10]} partner ${n % 7919} Ltd`;
        const created_at = new Date(Date.now() - n * 60_000).toISOString();
        return {
          id: new Types.ObjectId().toHexString(),
          organization_id: orgs[n % orgs.length]!,
          title,
          counterparty,
          substrings: [substringGrams(title), substringGrams(counterparty)],
          status: 'draft',
          created_at,
          record: { title, counterparty, created_at },
        };
      });
      await writeSearchDocs(s, { docs, deleted: [], readAt: Date.now() }, { refresh: false });
    }
    await s.es.indices.refresh({ index: searchAlias(s) });
    const loadSeconds = (performance.now() - t0) / 1000;
    const org = orgs[0]!;
    // Mid-word strings that vary each round (so neither cache answers): 2, 4 and 8 characters.
    const shapes: Array<[string, (i: number) => string]> = [
      ['2 characters', (i) => `${i % 10}${(i * 7) % 10}`],
      ['4 characters', (i) => `nt ${i % 10}`],
      ["a word's end, a space, the next word's start", (i) => `${WORDS[i % 10]!.slice(2)} ${WORDS[(i * 3) % 10]!.slice(0, 3)}`],
    ];
    const rows: BenchRow[] = [];
    for (const [shape, text] of shapes) {
      const took = { old: [] as number[], grams: [] as number[] };
      const wall = { old: [] as number[], grams: [] as number[] };
      for (let i = 0; i < 40; i++) {
        const queries = { old: oldContains(org, text(i)), grams: scopedQuery(org, { contains: text(i) }) };
        const totals: Record<string, number> = {};
        for (const kind of i % 2 ? (['old', 'grams'] as const) : (['grams', 'old'] as const)) {
          const t = performance.now();
          const res = await s.es.search({
            index: searchAlias(s),
            query: queries[kind],
            sort: sortOf({}).sort,
            size: 20,
            track_total_hits: true,
            request_cache: false,
            _source: ['record'],
          });
          wall[kind].push(performance.now() - t);
          took[kind].push(res.took);
          totals[kind] = typeof res.hits.total === 'number' ? res.hits.total : (res.hits.total?.value ?? 0);
        }
        if (totals.old !== totals.grams) throw new Error(`'${text(i)}': ${totals.old} by the wildcard, ${totals.grams} by the grams`);
      }
      const [oldP50, gramsP50] = [percentile(took.old, 50), percentile(took.grams, 50)];
      rows.push({
        name: `GET /contracts?search= (${shape}) at ${total} contracts in 10 organizations, Elasticsearch query`,
        baseline: `leading wildcard on the keywords: took p50 ${oldP50} ms, p95 ${percentile(took.old, 95)} ms (client ${ms(percentile(wall.old, 50))})`,
        measured: `3-gram phrase: took p50 ${gramsP50} ms, p95 ${percentile(took.grams, 95)} ms (client ${ms(percentile(wall.grams, 50))}); load average ${loadNow()}`,
        ratio: gramsP50 / Math.max(oldP50, 1),
        target: 'reported',
        met: null,
      });
    }
    const stats = await s.es.indices.stats({ index: generationIndex(s), metric: ['store'] });
    rows.push({
      name: `index of ${total} search documents (title, counterparty and their grams only)`,
      baseline: `written in ${loadSeconds.toFixed(0)} s`,
      measured: `${((stats._all.primaries?.store?.size_in_bytes ?? 0) / 2 ** 20).toFixed(1)} MiB on disk; load average ${loadNow()}`,
      ratio: 1,
      target: 'reported',
      met: null,
    });
    return rows;
  } finally {
    await closeBench(b);
  }
}

async function main() {
  if (SUBSTRINGS) return writeResult('search-substrings', await substringCost(Number(process.argv[3] ?? 100_000)));
  const rows: BenchRow[] = [];
  const pageCost: Record<string, number[]> = {};
  for (const size of SIZES) {
    const b = await openBench('search');
    const api = await listenApi(b);
    const s = b.services;
    try {
      const apiUrl = `${api.url}/api/v1`;
      const user = await registerUser(apiUrl);
      const org = new Types.ObjectId(user.organizationId);
      const t0 = performance.now();
      await bulkLoad(org, size, new Types.ObjectId(user.userId));
      await bulkLoad(new Types.ObjectId(), size / 10, new Types.ObjectId());
      const loadSeconds = (performance.now() - t0) / 1000;
      // The full rebuild from the store, as the reindex workflow's parts run it.
      await ensureSearchIndex(s);
      const t1 = performance.now();
      const rebuilt = await rebuildSearchPart(s, { after: null, budgetMs: Number.MAX_SAFE_INTEGER });
      await s.es.indices.refresh({ index: searchAlias(s) });
      const reindexSeconds = (performance.now() - t1) / 1000;
      rows.push({
        name: `full reindex from the store, ${rebuilt.indexed} contracts`,
        baseline: `store bulk load ${loadSeconds.toFixed(0)} s`,
        measured: `${reindexSeconds.toFixed(1)} s (${(rebuilt.indexed / reindexSeconds).toFixed(0)}/s); load average ${loadNow()}`,
        ratio: reindexSeconds / loadSeconds,
        target: size >= 100_000 ? '< 300 s' : 'reported',
        met: size >= 100_000 ? reindexSeconds < 300 : null,
      });

      const criteria = { status: ['active' as const] };
      const queries = [
        {
          name: 'GET /contracts page of 20',
          path: '/contracts?page=1&page_size=20',
          es: { query: scopedQuery(user.organizationId, {}), sort: sortOf({}).sort },
        },
        {
          name: 'GET /search/contracts status filter + 3 facets',
          path: '/search/contracts?status=active&facets=status,type,governing_law',
          es: {
            query: scopedQuery(user.organizationId, criteria),
            sort: sortOf(criteria).sort,
            aggs: facetAggs(['status', 'type', 'governing_law']),
          },
        },
      ];
      for (const q of queries) {
        const took: number[] = [];
        for (let i = 0; i < 30; i++) {
          const res = await s.es.search({ index: searchAlias(s), size: 20, track_total_hits: true, ...q.es });
          took.push(res.took);
        }
        const tookP50 = percentile(took, 50);
        // Unmeasured: the API process is fresh at the first size, and its first seconds run unoptimized code.
        await load(`${apiUrl}${q.path}`, 10, user.token, WARM_UP_SECONDS);
        const one = await load(`${apiUrl}${q.path}`, 1, user.token);
        const ten = await load(`${apiUrl}${q.path}`, 10, user.token);
        (pageCost[q.name] ??= []).push(one.p50);
        rows.push({
          name: `${q.name} at ${size}, 1 connection`,
          baseline: `ES took p50 ${tookP50} ms`,
          measured: `p50 ${one.p50} ms, p99 ${one.p99} ms, ${one.rps.toFixed(0)} req/s; load average ${loadNow()}`,
          ratio: one.p50 / Math.max(tookP50, 1),
          target: 'p50 ≤ 50 ms',
          met: one.p50 <= 50,
        });
        rows.push({
          name: `${q.name} at ${size}, 10 connections`,
          baseline: `ES took p50 ${tookP50} ms`,
          measured: `${ten.rps.toFixed(0)} req/s, p50 ${ten.p50} ms, p99 ${ten.p99} ms; load average ${loadNow()}`,
          ratio: ten.p50 / Math.max(tookP50, 1),
          target: '≥ 150 req/s',
          met: ten.rps >= 150,
        });
      }
      const stats = await s.es.indices.stats({ index: generationIndex(s), metric: ['store', 'docs'] });
      const bytes = stats._all.primaries?.store?.size_in_bytes ?? 0;
      const nodes = await s.es.nodes.stats({ metric: ['jvm'] });
      const heap = Object.values(nodes.nodes)[0]?.jvm?.mem?.heap_used_in_bytes ?? 0;
      const per10k = (10_000 / rebuilt.indexed) * bytes;
      rows.push({
        name: `Elasticsearch at ${rebuilt.indexed} contracts`,
        baseline: 'reported',
        measured: `index ${(bytes / 2 ** 20).toFixed(1)} MiB on disk (${(per10k / 2 ** 20).toFixed(1)} MiB per 10,000); node heap used ${(heap / 2 ** 20).toFixed(0)} MiB of 512 (all indices of the shared node)`,
        ratio: 1,
        target: 'reported',
        met: null,
      });
    } finally {
      await api.close();
      await closeBench(b);
    }
  }
  if (SIZES.length > 1) {
    for (const [name, costs] of Object.entries(pageCost)) {
      const ratio = costs.at(-1)! / Math.max(costs[0]!, 1);
      rows.push({
        name: `${name}: p50 at ${SIZES.at(-1)} ÷ at ${SIZES[0]}`,
        baseline: `${costs[0]} ms`,
        measured: `${costs.at(-1)} ms`,
        ratio,
        target: '≤ 1.5×',
        met: ratio <= 1.5,
      });
    }
  }
  writeResult('search', rows);
}

runBench(main);
