/** What the approval workflow shares with the API and its activities. No I/O. */
import { defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

export const approvalWorkflowId = (approvalId: string) => `approval-${approvalId}`;

export interface ApprovalWorkflowInput {
  organizationId: string;
  approvalId: string;
}

/** The request as the workflow plans from it: the active step and its days, or closed. */
export interface ApprovalPlan {
  open: boolean;
  step: number | null;
  reminderDays: number;
  escalationDays: number | null;
  escalated: boolean;
}

/** A decision, an override or an edit changed the request: read it again. */
export const approvalChangedSignal = defineSignal('approvalChanged');

export const approval = workflowRef<[ApprovalWorkflowInput]>('approvalWorkflow', 'approval');
