/**
 * The compliance scan's steps (`compliance-scan-<scanId>`, run by activities/compliance.ts): scan the contracts in the
 * scan's scope a page at a time (rules, then AI flags; one open task per contract
 * and rule; `compliance.alert` per new task), record progress, finish. Every step is safe
 * to retry: tasks are upserted on (contract, rule, open), an alert is recorded once per
 * task (`alerted_at`), and progress is written as absolute numbers.
 */
import { trusted, Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { recordEvent } from '../../platform/outbox/record-event';
import { redisKey } from '../../platform/redis';
import { withLock } from '../../platform/lock';
import { aiFindings, evaluateContract, type Finding } from './evaluate';
import { analyzeText } from '../contracts/contract-ai';
import { orgFilter } from '../../models/base';
import { Contract, type ContractDoc } from '../../models/contract';
import { ComplianceScan, type ComplianceScanDoc } from '../../models/compliance-scan';
import { ComplianceTask, OPEN_STATUSES, type ComplianceTaskDoc } from '../../models/compliance-task';
import { dayOf } from '../../platform/dates';

const DAY_MS = 86_400_000;

async function loadScan(scanId: string): Promise<ComplianceScanDoc> {
  const scan = await ComplianceScan.findById(scanId);
  if (!scan) throw new Error(`compliance scan ${scanId} not found`);
  return scan;
}

/**
 * Two scans of one organization may run at once, and the store has no partial unique
 * index to keep one open task per contract and rule; a short Redis lock per contract
 * serializes the check-and-insert across them. It expires by itself if a worker dies.
 */
function withContractLock<T>(s: Engines, run: ScanRun, contractId: string, fn: () => Promise<T>): Promise<T> {
  return withLock(s.redis, redisKey(s.config, 'compliance-scan-lock', contractId), { ttlMs: 60_000, sleep: (ms) => run.sleep(ms) }, fn);
}

/** The open task for this contract and rule, created by this scan when there was none. */
async function upsertTask(scan: ComplianceScanDoc, contract: ContractDoc, f: Finding): Promise<ComplianceTaskDoc> {
  const filter = {
    organization_id: scan.organization_id,
    contract_id: contract._id,
    rule_id: f.rule_id,
    status: trusted({ $in: OPEN_STATUSES }),
  };
  const task = await ComplianceTask.findOneAndUpdate(
    filter,
    {
      $setOnInsert: {
        title: f.title,
        description: f.description,
        priority: f.priority,
        status: 'pending',
        due_date: new Date(Date.now() + f.due_in_days * DAY_MS),
        contract_title: contract.title,
        regulation_type: f.regulation_type,
        jurisdiction: f.jurisdiction,
        scan_id: scan._id,
      },
    },
    { upsert: true, returnDocument: 'after' },
  );
  return task;
}

async function alert(task: ComplianceTaskDoc): Promise<void> {
  const dueDate = dayOf(task.due_date);
  await recordEvent({
    organizationId: task.organization_id.toHexString(),
    type: 'compliance.alert',
    data: {
      id: task.id,
      task_id: task.id,
      title: task.title,
      priority: task.priority,
      status: task.status,
      regulation_type: task.regulation_type,
      jurisdiction: task.jurisdiction,
      rule_id: task.rule_id,
      contract_id: task.contract_id.toHexString(),
      contract_title: task.contract_title,
      due_date: dueDate,
      scan_id: task.scan_id?.toHexString() ?? null,
    },
    actor: { type: 'system', id: null, name: 'compliance scan' },
    resource: { type: 'compliance_task', id: task.id },
    summary: `Compliance issue "${task.title}" on contract "${task.contract_title}" (${task.priority} priority, due ${dueDate})`,
  });
  await ComplianceTask.updateOne({ _id: task._id }, { $set: { alerted_at: new Date() } });
}

/** What the runner of a scan step gives it: a sign of life per contract, and a sleep that a cancellation ends. */
export interface ScanRun {
  heartbeat(contractId: string): void;
  sleep(ms: number): Promise<void>;
}

export interface ScanBatch {
  scanId: string;
  afterId: string | null;
  scannedBefore: number;
  limit: number;
}

/**
 * Scans the next page of contracts in scope after `afterId` and records progress;
 * `done` when the page was the last. Listing and scanning in one step halves the
 * round trips of a small scan.
 */
export async function scanContracts(
  s: Engines,
  { scanId, afterId, scannedBefore, limit }: ScanBatch,
  run: ScanRun,
): Promise<{ afterId: string | null; scanned: number; done: boolean }> {
  const scan = await loadScan(scanId);
  const idCondition = {
    ...(afterId ? { $gt: new Types.ObjectId(afterId) } : {}),
    ...(scan.contract_ids?.length ? { $in: scan.contract_ids } : {}),
  };
  const filter = {
    ...orgFilter(scan.organization_id.toHexString()),
    ...(scan.scope === 'active' ? { status: 'active' as const } : {}),
    ...(Object.keys(idCondition).length ? { _id: trusted(idCondition) } : {}),
  };
  const contracts = await Contract.find(filter).sort({ _id: 1 }).limit(limit);
  for (const contract of contracts) {
    const text = `${contract.title}\n${contract.content ?? ''}`;
    const analysis = await analyzeText(s, { type: contract.type, title: contract.title, content: contract.content ?? '' });
    const findings = [
      ...evaluateContract(text, scan.jurisdictions),
      ...aiFindings(text, analysis.analysis.compliance_flags, scan.jurisdictions),
    ];
    await withContractLock(s, run, contract.id, async () => {
      for (const f of findings) {
        const task = await upsertTask(scan, contract, f);
        if (task.scan_id?.equals(scan._id) && !task.alerted_at) await alert(task);
      }
    });
    run.heartbeat(contract.id);
  }
  const scanned = scannedBefore + contracts.length;
  const tasksCreated = await ComplianceTask.countDocuments({ organization_id: scan.organization_id, scan_id: scan._id });
  await ComplianceScan.updateOne({ _id: scan._id }, { $set: { contracts_scanned: scanned, tasks_created: tasksCreated } });
  return { afterId: contracts.at(-1)?.id ?? afterId, scanned, done: contracts.length < limit };
}

/** The scan's end: completed, or failed with its error. */
export async function finishScan({ scanId, error }: { scanId: string; error?: string }): Promise<void> {
  await ComplianceScan.updateOne(
    { _id: new Types.ObjectId(scanId) },
    { $set: { status: error ? 'failed' : 'completed', error: error ?? null, completed_at: new Date() } },
  );
}
