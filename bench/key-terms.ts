/**
 * The key-term rules on large texts (issue 29): `"a. "` repeated, the input that made them
 * quadratic, and contract-like text (numbered clauses with the sentences the rules look for
 * spread through them), at 7.5, 15, 30, 60 and 500 KB. Each runs through an offload pool
 * thread, as the service runs them, with the time budget lifted so the whole run is timed.
 * Target: a 500 KB text read whole within KEY_TERMS_BUDGET_MS and under 2 s.
 * Baseline: one regex pass over the same text in the same thread (the least any rule costs).
 * Then through HTTP, as a tenant meets it: `POST /contracts/:id/extract` of a 500 KB contract
 * while another organization reads `GET /contracts` one request after another (target: the
 * extraction under 2 s, each list under 200 ms), against the same list with nothing extracting.
 *   node --import tsx bench/key-terms.ts
 */
import os from 'node:os';
import { loadConfig } from '../platform/config';
import { createOffloadPool } from '../platform/offload';
import { keyTermRulesTask, type RulesAnswer } from '../services/contracts/extract-key-terms';
import { sentence } from './fixtures';
import { baselinePassTask } from './key-terms-baseline';
import { writeResult, type BenchRow } from './report';
import { closeBench, latencies, listenApi, openBench, percentile, registerUser, type BenchUser } from './support';

export const SIZES_KB = [7.5, 15, 30, 60, 500];
const TARGET_MS = 2000;

/** `"a. "` repeated to `bytes` characters: one line of sentences of one letter. */
export const hostileText = (bytes: number) => 'a. '.repeat(Math.ceil(bytes / 3)).slice(0, bytes);

const KEY_CLAUSES = [
  'This Master Services Agreement is entered into as of March 3, 2026 by and between Harbour Mills, Inc., an Ohio corporation ("Customer"), and Quayside Grain LLC ("Provider").',
  'This Agreement continues for a period of two (2) years from the Effective Date.',
  'Thereafter it will automatically renew for successive periods of twelve (12) months each unless either party gives notice of non-renewal at least 60 days before the end of the then-current Term.',
  'Customer may terminate this Agreement for convenience on thirty days written notice.',
  'Customer shall pay each invoice within thirty (30) days of receipt.',
  "In no event will either party's aggregate liability exceed $250,000.",
  'This Agreement is governed by the laws of the State of New York.',
  'Any dispute will be adjudicated in the state and federal courts located in New York County, New York.',
];

/** Contract-like text of `bytes` characters: numbered clauses of ten sentences, the key clauses spread evenly through them. */
export function contractText(bytes: number): string {
  const bodies: string[] = [];
  for (let n = 0, length = 0; length < bytes; n++) {
    bodies.push(Array.from({ length: 10 }, (_, i) => sentence(n * 10 + i)).join(' '));
    length += bodies.at(-1)!.length + 6;
  }
  const every = bodies.length / KEY_CLAUSES.length;
  const keyAt = new Map(KEY_CLAUSES.map((c, k) => [Math.floor(k * every), c]));
  return bodies
    .map((body, n) => `${n + 1}. ${keyAt.has(n) ? `${keyAt.get(n)} ` : ''}${body}`)
    .join('\n\n')
    .slice(0, bytes);
}

async function fastest(run: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await run();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const LIST_TARGET_MS = 200;
const EXTRACTIONS = 5;

async function timed(url: string, user: BenchUser, init: RequestInit = {}): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status}`);
  return performance.now() - t0;
}

/** Another organization's list, one request after another until `until` settles; the latencies. */
async function listWhile(url: string, user: BenchUser, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const samples: number[] = [];
  while (!done) samples.push(await timed(url, user));
  return samples;
}

/** The API in this process (as `npm start` runs it), a 500 KB contract of one tenant extracted while another lists. */
async function extractionWhileListing(rows: BenchRow[], rulesMs: number): Promise<void> {
  const bench = await openBench('key-terms');
  const api = await listenApi(bench);
  try {
    const base = `${api.url}/api/v1`;
    const [owner, other] = [await registerUser(base, 'extracting'), await registerUser(base, 'listing')];
    for (let i = 0; i < 20; i++) {
      await timed(`${base}/contracts`, other, {
        method: 'POST',
        body: JSON.stringify({ title: `Listed ${i}`, type: 'nda', counterparty: `Party ${i}` }),
      });
    }
    const created = await fetch(`${base}/contracts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Long terms', type: 'service_agreement', counterparty: 'Harbour', content: hostileText(500_000) }),
    });
    const { id } = (await created.json()) as { id: string };
    const list = `${base}/contracts?limit=20`;
    const quiet: number[] = [];
    for (let i = 0; i < 50; i++) quiet.push(await timed(list, other));
    const load = os.loadavg()[0]!.toFixed(1);
    const extractions: number[] = [];
    const during: number[] = [];
    for (let i = 0; i < EXTRACTIONS; i++) {
      const extraction = timed(`${base}/contracts/${id}/extract`, owner, { method: 'POST' });
      during.push(...(await listWhile(list, other, extraction)));
      extractions.push(await extraction);
    }
    const worstList = Math.max(...during);
    rows.push({
      name: `POST /contracts/:id/extract, 500 KB "a. " text, ${EXTRACTIONS} runs (load ${load})`,
      baseline: `${rulesMs.toFixed(0)} ms (the rules alone in a thread)`,
      measured: latencies(extractions, [50, 100]),
      ratio: percentile(extractions, 50) / rulesMs,
      target: `< ${TARGET_MS} ms`,
      met: Math.max(...extractions) < TARGET_MS,
    });
    rows.push({
      name: `another organization's GET /contracts meanwhile, ${during.length} requests`,
      baseline: `${latencies(quiet, [50, 95])} with nothing extracting`,
      measured: `${latencies(during, [50, 95])}, max ${worstList.toFixed(0)} ms`,
      ratio: percentile(during, 95) / percentile(quiet, 95),
      target: `each < ${LIST_TARGET_MS} ms`,
      met: worstList < LIST_TARGET_MS,
    });
  } finally {
    await api.close();
    await closeBench(bench);
  }
}

async function main() {
  const config = loadConfig({ NODE_ENV: 'development' });
  const pool = createOffloadPool({ threads: 1 });
  const limits = { maxTextChars: config.KEY_TERMS_MAX_TEXT_CHARS, maxLineChars: config.KEY_TERMS_MAX_LINE_CHARS, budgetMs: 600_000 };
  const rows: BenchRow[] = [];
  let hostile500Ms = Number.NaN;
  try {
    // Warm the thread: its start and the modules' loading are not the rules' time.
    await pool.run(keyTermRulesTask, { pages: [{ page: 1, text: contractText(2000) }], limits }, { timeoutMs: 600_000 });
    await pool.run(baselinePassTask, { text: 'a. a.' }, { timeoutMs: 600_000 });
    for (const [kind, make] of [
      ['"a. " repeated', hostileText],
      ['contract-like', contractText],
    ] as const) {
      for (const kb of SIZES_KB) {
        const pages = [{ page: 1, text: make(Math.round(kb * 1000)) }];
        const load = os.loadavg()[0]!.toFixed(1);
        // The fastest of three runs each: one slow run on a busy machine says little about the code.
        const baseline = await fastest(() => pool.run(baselinePassTask, { text: pages[0]!.text }, { timeoutMs: 600_000 }));
        let answer: RulesAnswer | undefined;
        const ms = await fastest(async () => (answer = await pool.run(keyTermRulesTask, { pages, limits }, { timeoutMs: 600_000 })));
        const found = Object.values(answer!.terms).filter(Boolean).length;
        if (make === hostileText && kb === 500) hostile500Ms = ms;
        const within = ms <= config.KEY_TERMS_BUDGET_MS;
        rows.push({
          name: `key-term rules, ${kind}, ${kb} KB (load ${load})`,
          baseline: `${baseline.toFixed(1)} ms (one regex pass)`,
          measured: `${ms.toFixed(0)} ms, ${found} terms${within ? '' : `, over the ${config.KEY_TERMS_BUDGET_MS} ms budget`}`,
          ratio: ms / baseline,
          target: kb === 500 ? `whole text < ${TARGET_MS} ms` : '—',
          met: kb === 500 ? ms < TARGET_MS && within : null,
        });
      }
    }
  } finally {
    await pool.close();
  }
  await extractionWhileListing(rows, hostile500Ms);
  writeResult('key-terms', rows);
}

if (require.main === module) void main();
