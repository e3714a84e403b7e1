/** What the audit-log export's starter (services/audit/export-audit.ts) shares with its workflow. No I/O. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface AuditExportInput {
  organizationId: string;
  exportId: string;
}

export const auditExport = workflowRef<[AuditExportInput]>('auditExportWorkflow', 'audit-export', 'bulk');
export const auditExportWorkflowId = (exportId: string) => `audit-export-${exportId}`;
