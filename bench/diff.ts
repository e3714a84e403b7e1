/**
 * The redline of two 500 KB versions (issue 33: p95 under 2 s, off the event loop): four
 * shapes of edit on synthetic contract text (a realistic edit, every paragraph touched, two
 * unrelated texts, one 500 KB line), each run through the offload pool as the API runs it.
 * Baseline: splitting both texts into paragraphs and hashing them, the least any diff does.
 * Also the event loop's worst lag while the redlines run, which stays small because the work
 * is on a worker thread.
 *   node --import tsx bench/diff.ts [runs per case]
 * Needs no engine.
 */
import { createHash } from 'node:crypto';
import { createOffloadPool, offloadTask } from '../platform/offload';
import { paragraphsOf, type redlineTexts } from '../services/contracts/redline';
import { writeResult, type BenchRow } from './report';

const RUNS = Number(process.argv[2] ?? 20);
const SIZE = 500_000;
const TARGET_MS = 2000;

/** mulberry32: the same text on every run. */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x + 0x6d2b79f5) | 0;
    let t = Math.imul(x ^ (x >>> 15), 1 | x);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the customer supplier shall pay fees within thirty days of invoice liability cap agreement term notice party ' +
  'confidential information termination renewal warranty indemnify governing law services deliverables schedule'
).split(' ');

function paragraphs(seed: number): string[] {
  const r = random(seed);
  const out: string[] = [];
  for (let size = 0; size < SIZE;) {
    const p = `${out.length + 1}. ${Array.from({ length: 10 + Math.floor(r() * 40) }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ')}.`;
    out.push(p);
    size += p.length + 1;
  }
  return out;
}

const base = paragraphs(1);
const CASES: Array<[string, string, string]> = [
  [
    'an edit: every 7th paragraph changed, every 50th removed',
    base.join('\n'),
    base
      .map((p, i) => (i % 7 === 0 ? p.replace(' fees ', ' all undisputed fees ') : p))
      .filter((_, i) => i % 50 !== 3)
      .join('\n'),
  ],
  ['every paragraph changed', base.join('\n'), base.map((p) => `${p} Amended.`).join('\n')],
  ['two unrelated texts', base.join('\n'), paragraphs(2).join('\n')],
  ['one 500 KB line, edited', base.join(' '), base.map((p, i) => (i % 7 === 0 ? p.replace(' fees ', ' fees due ') : p)).join(' ')],
];

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

async function main() {
  const pool = createOffloadPool({ threads: 1 });
  const task = offloadTask<typeof redlineTexts>(require.resolve('../services/contracts/redline'), 'redlineTexts');
  await pool.run(task, { a: 'warm', b: 'up' }, { timeoutMs: 30_000 });
  const rows: BenchRow[] = [];
  for (const [name, a, b] of CASES) {
    const baseline: number[] = [];
    const measured: number[] = [];
    let lag = 0;
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      for (const text of [a, b]) for (const p of paragraphsOf(text)) createHash('sha1').update(p).digest();
      baseline.push(performance.now() - t);
      let tick = performance.now();
      const timer = setInterval(() => {
        lag = Math.max(lag, performance.now() - tick - 5);
        tick = performance.now();
      }, 5);
      t = performance.now();
      await pool.run(task, { a, b }, { timeoutMs: 30_000 });
      measured.push(performance.now() - t);
      clearInterval(timer);
    }
    const p95 = percentile(measured, 95);
    rows.push({
      name: `${name} (${(a.length / 1000).toFixed(0)} KB → ${(b.length / 1000).toFixed(0)} KB)`,
      baseline: `p95 ${percentile(baseline, 95).toFixed(0)} ms`,
      measured: `p50 ${percentile(measured, 50).toFixed(0)} ms, p95 ${p95.toFixed(0)} ms; event-loop lag ≤ ${lag.toFixed(0)} ms`,
      ratio: p95 / percentile(baseline, 95),
      target: `p95 < ${TARGET_MS} ms`,
      met: p95 < TARGET_MS,
    });
  }
  await pool.close();
  writeResult('diff', rows);
}

void main();
