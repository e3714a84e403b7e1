/**
 * Shared by the benchmarks: each writes its rows to bench/results/<name>.json (ignored by
 * git) and prints them; bench/run.ts prints every result as one ratio table.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchRow {
  name: string;
  baseline: string;
  measured: string;
  /** measured ÷ baseline of the quantity the target is about. */
  ratio: number;
  target: string;
  /** null: no target is set for this case, the figures are reported only. */
  met: boolean | null;
}

const RESULTS = path.join(__dirname, 'results');

export const machine = () =>
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;

export function writeResult(name: string, rows: BenchRow[]): void {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    path.join(RESULTS, `${name}.json`),
    JSON.stringify({ name, machine: machine(), at: new Date().toISOString(), rows }, null, 2),
  );
  console.log(table(rows));
}

export function table(rows: BenchRow[]): string {
  const lines = ['| case | baseline | measured | ratio | target | met |', '|---|---|---|---|---|---|'];
  for (const r of rows)
    lines.push(
      `| ${r.name} | ${r.baseline} | ${r.measured} | ${Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : '—'} | ${r.target} | ${r.met === null ? '—' : r.met ? 'yes' : 'no'} |`,
    );
  return lines.join('\n');
}

export function readResults(): Array<{ name: string; machine: string; at: string; rows: BenchRow[] }> {
  if (!existsSync(RESULTS)) return [];
  return readdirSync(RESULTS)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(RESULTS, f), 'utf8')) as { name: string; machine: string; at: string; rows: BenchRow[] });
}
