/** The approval workflow's activities (workflows/approval.ts): each a use case of services/approvals/approval-reminders.ts. */
import type { Engines } from '../platform/engines';
import { escalateApproval, notifyApprovers, planApproval, sendApprovalReminder } from '../services/approvals/approval-reminders';
import type { ApprovalWorkflowInput } from '../workflows/approval.shared';

export function createApprovalActivities(s: Engines) {
  return {
    planApproval: (input: ApprovalWorkflowInput) => planApproval(input),
    notifyApprovers: (input: ApprovalWorkflowInput & { step: number }) => notifyApprovers(s, input),
    sendApprovalReminder: (input: ApprovalWorkflowInput & { step: number; n: number }) => sendApprovalReminder(s, input),
    escalateApproval: (input: ApprovalWorkflowInput & { step: number }) => escalateApproval(s, input),
  };
}

export type ApprovalActivities = ReturnType<typeof createApprovalActivities>;
