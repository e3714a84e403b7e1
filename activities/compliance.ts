/** The compliance scan's steps adapted to Temporal (services/compliance/scan-contracts.ts). */
import { Context } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import { finishScan, scanContracts, type ScanBatch } from '../services/compliance/scan-contracts';

export function createComplianceActivities(s: Engines) {
  return {
    scanBatch: (batch: ScanBatch) =>
      scanContracts(s, batch, { heartbeat: (id) => Context.current().heartbeat(id), sleep: (ms) => Context.current().sleep(ms) }),
    finishScan,
  };
}

export type ComplianceActivities = ReturnType<typeof createComplianceActivities>;
