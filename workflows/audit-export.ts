/**
 * Writes an export of the identity audit log to a file (services/audit/export-audit.ts). The
 * write is idempotent (a temporary file renamed at the end); when every retry failed, the export
 * is marked failed so its status says so.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { AuditActivities } from '../activities/audit';
import type { AuditExportInput } from './audit-export.shared';

const { writeAuditExport } = proxyActivities<AuditActivities>({
  startToCloseTimeout: '30 minutes',
  retry: { maximumAttempts: 5, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});
const { failAuditExport } = proxyActivities<AuditActivities>({ startToCloseTimeout: '1 minute' });

export async function auditExportWorkflow(input: AuditExportInput): Promise<void> {
  try {
    await writeAuditExport(input);
  } catch (err) {
    await failAuditExport({ ...input, error: err instanceof Error ? err.message : String(err) });
  }
}
