/**
 * A bulk import of 10,000 contract rows (CSV, no files), as a user makes it: the API in this
 * process, the worker in a process of its own, from `POST /imports` until the import is
 * `completed` (target: under 2 minutes, issue 30). The bare baseline, in the same run: the
 * same 10,000 contracts written by one `insertMany` from this process, with no API, workflow
 * or events. Also the workflows started per contract: by `POST /contracts` (with content, as
 * a person creates one) and by the import, counted from Temporal's visibility per organization.
 *   source .stack/stack.env && node --import tsx bench/import.ts [rows]
 */
import { Types } from 'mongoose';
import { Contract } from '../models/contract';
import { startWorkerProcess } from '../test/support/processes';
import { writeResult, type BenchRow } from './report';
import { closeBench, listenApi, loadNow, openBench, registerUser, runBench, waitForWorker, type Bench } from './support';

const ROWS = Number(process.argv[2] ?? 10_000);
const TARGET_S = 120;
const PER_CONTRACT_SAMPLE = 20;

const csvOf = (n: number, label: string) =>
  [
    'title,type,counterparty,start_date,end_date,value,currency',
    ...Array.from({ length: n }, (_, i) => `${label} ${i},service_agreement,Counterparty ${i % 500},2024-01-01,2026-12-31,${1000 + i},USD`),
  ].join('\n');

/** Workflows of the organization, by kind, once visibility has caught up (it settles for 3 s). */
async function workflowsOf(b: Bench, organizationId: string): Promise<Record<string, number>> {
  const kinds: Record<string, number> = {};
  let last = '';
  for (let same = 0; same < 3;) {
    const { executions } = await b.services.temporal.workflowService.listWorkflowExecutions({
      namespace: b.config.TEMPORAL_NAMESPACE,
      query: `OrganizationId = "${organizationId}"`,
      pageSize: 1000,
    });
    for (const k of Object.keys(kinds)) delete kinds[k];
    for (const e of executions ?? []) {
      const type = e.type?.name ?? '?';
      kinds[type] = (kinds[type] ?? 0) + 1;
    }
    const now = JSON.stringify(kinds);
    same = now === last ? same + 1 : 0;
    last = now;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return kinds;
}

const perContract = (kinds: Record<string, number>, n: number, skip: string[] = []) =>
  Object.entries(kinds)
    .filter(([k]) => !skip.includes(k))
    .reduce((sum, [, c]) => sum + c, 0) / n;

async function main() {
  const b = await openBench('import');
  const api = await listenApi(b);
  const worker = startWorkerProcess(b.env);
  try {
    await waitForWorker(b, 120_000, worker.pid);
    const base = `${api.url}/api/v1`;

    // Bare: the same rows straight into the store.
    const bareOrg = new Types.ObjectId();
    const bareStart = performance.now();
    for (let i = 0; i < ROWS; i += 1000)
      await Contract.insertMany(
        Array.from({ length: Math.min(1000, ROWS - i) }, (_, j) => ({
          organization_id: bareOrg,
          title: `Bare ${i + j}`,
          type: 'service_agreement',
          counterparty: `Counterparty ${(i + j) % 500}`,
          start_date: new Date('2024-01-01'),
          end_date: new Date('2026-12-31'),
          value: 1000 + i + j,
        })),
      );
    const bareS = (performance.now() - bareStart) / 1000;

    const user = await registerUser(base, 'import');
    const loadBefore = loadNow();
    const form = new FormData();
    form.append('records', new Blob([csvOf(ROWS, 'Imported')]), 'contracts.csv');
    const start = performance.now();
    const res = await fetch(`${base}/imports`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    const accepted = (await res.json()) as { id: string };
    if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${JSON.stringify(accepted)}`);
    const acceptedS = (performance.now() - start) / 1000;
    let state: { status: string; rows: { done: number; failed: number } } = { status: 'running', rows: { done: 0, failed: 0 } };
    while (state.status === 'running') {
      await new Promise((r) => setTimeout(r, 500));
      state = (await (
        await fetch(`${base}/imports/${accepted.id}`, { headers: { authorization: `Bearer ${user.token}` } })
      ).json()) as typeof state;
    }
    const importS = (performance.now() - start) / 1000;
    if (state.status !== 'completed' || state.rows.done !== ROWS) throw new Error(`import ended ${JSON.stringify(state)}`);
    const loadAfter = loadNow();
    const imported = await workflowsOf(b, user.organizationId);

    // What POST /contracts starts per contract, for a few contracts with text.
    const person = await registerUser(base, 'person');
    for (let i = 0; i < PER_CONTRACT_SAMPLE; i++) {
      const r = await fetch(`${base}/contracts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${person.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Created ${i}`,
          type: 'service_agreement',
          counterparty: 'Counterparty',
          content:
            'This Agreement renews automatically for successive one-year terms. It is governed by the laws of the State of New York.',
        }),
      });
      if (r.status !== 201) throw new Error(`POST /contracts: ${r.status}`);
    }
    const created = await workflowsOf(b, person.organizationId);
    const orgWide = ['contractIndexWorkflow', 'webhookBatchWorkflow'];

    const rows: BenchRow[] = [
      {
        name: `import ${ROWS} rows, no files (202 after ${acceptedS.toFixed(1)} s; load ${loadBefore} → ${loadAfter})`,
        baseline: `${bareS.toFixed(1)} s (insertMany)`,
        measured: `${importS.toFixed(1)} s (${Math.round(ROWS / importS)} rows/s)`,
        ratio: importS / bareS,
        target: `< ${TARGET_S} s`,
        met: importS < TARGET_S,
      },
      {
        name: `workflows per contract: POST /contracts with content (${JSON.stringify(created)})`,
        baseline: '-',
        measured: `${perContract(created, PER_CONTRACT_SAMPLE, orgWide).toFixed(2)} (+ per-organization ${orgWide.join(', ')})`,
        ratio: 1,
        target: '-',
        met: null,
      },
      {
        name: `workflows per contract: import (${JSON.stringify(imported)})`,
        baseline: '-',
        measured: `${perContract(imported, ROWS, [...orgWide, 'bulkImportWorkflow']).toFixed(4)} (+ 1 bulkImportWorkflow per import)`,
        ratio: 1,
        target: '-',
        met: null,
      },
    ];
    writeResult('import', rows);
  } finally {
    await worker.stop();
    await api.close();
    await closeBench(b);
  }
}

runBench(main);
