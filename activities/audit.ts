/** Activities of the audit-log export (workflows/audit-export.ts): each a use case of services/audit/export-audit.ts. */
import type { Engines } from '../platform/engines';
import { failAuditExport, writeAuditExport } from '../services/audit/export-audit';
import type { AuditExportInput } from '../workflows/audit-export.shared';

export function createAuditActivities(s: Engines) {
  return {
    writeAuditExport: (input: AuditExportInput) => writeAuditExport(s, input),
    failAuditExport: (input: AuditExportInput & { error: string }) => failAuditExport(input),
  };
}

export type AuditActivities = ReturnType<typeof createAuditActivities>;
