/** What starters of the bulk-send workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

/** The workflow of a bulk send (an import record of kind `bulk_send`). */
export const bulkSendWorkflowId = (importId: string) => `bulk-send-${importId}`;

/** Carried across continue-as-new: the next batch and the counts so far. */
export interface BulkSendProgress {
  batch: number;
  done: number;
  failed: number;
  sent: number;
  awaitingApproval: number;
}

export interface BulkSendInput {
  importId: string;
  progress?: BulkSendProgress;
}

export const bulkSend = workflowRef<[BulkSendInput]>('bulkSendWorkflow', 'bulk-send', 'bulk');
