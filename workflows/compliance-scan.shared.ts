/** What starters of the compliance scan workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const complianceScan = workflowRef<[{ scanId: string }]>('complianceScanWorkflow', 'compliance-scan', 'bulk');
export const complianceScanWorkflowId = (scanId: string) => `compliance-scan-${scanId}`;
