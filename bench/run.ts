/**
 * `npm run bench [names...]`: runs each benchmark (bench/<name>.ts) in a process of its own,
 * one after another so they do not compete for the 2 cores, then prints all results.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { machine, readResults, table } from './report';

export const BENCHMARKS = [
  'contracts',
  'lists',
  'search',
  'embedding',
  'retrieval',
  'ingestion',
  'ingest-model',
  'webhook-latency',
  'mail',
  'key-terms',
  'import',
  'diff',
  'writes',
  'templates',
];

const chosen = process.argv.slice(2).length ? process.argv.slice(2) : BENCHMARKS;
let failed = 0;
for (const name of chosen) {
  console.log(`\n[bench] ${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, `${name}.ts`)], { stdio: 'inherit', env: process.env });
  if (r.status !== 0) failed++;
}
console.log(`\n# Results (${machine()})\n`);
for (const result of readResults().filter((r) => chosen.includes(r.name))) {
  console.log(`## ${result.name} (${result.at})\n\n${table(result.rows)}\n`);
}
process.exit(failed ? 1 : 0);
