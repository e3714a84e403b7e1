/** What the renewal-deadline workflow and those who start or signal it share. */
import { defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

export const RENEWAL_DEADLINE_WORKFLOW = 'renewalDeadlineWorkflow';
export const renewalWorkflowId = (contractId: string) => `renewal-${contractId}`;

export interface RenewalDeadlineInput {
  organizationId: string;
  contractId: string;
}

/** The terms, the contract's dates or the organization's reminder days changed: plan again. */
export const rescheduleSignal = defineSignal('renewalReschedule');

export interface RenewalPlan {
  /** YYYY-MM-DD, or null when the contract does not renew automatically or its dates are unknown. */
  deadline: string | null;
  /** Days before the deadline to remind at, e.g. [90, 60, 30, 7]. */
  days: number[];
  /** Those already reminded for this deadline. */
  sent: number[];
}

const DAY_MS = 86_400_000;

/**
 * The reminders still to come: [days before, due time], soonest first. A contract with none
 * (no deadline, or every reminder day past or sent) needs no workflow. Pure: the workflow
 * plans with it, and its starter decides with it whether to start one.
 */
export function upcomingReminders(plan: RenewalPlan, now: number): Array<[number, number]> {
  if (!plan.deadline) return [];
  const deadline = Date.parse(`${plan.deadline}T00:00:00Z`);
  return plan.days
    .filter((d) => !plan.sent.includes(d))
    .map((d): [number, number] => [d, deadline - d * DAY_MS])
    .filter(([, at]) => at >= now)
    .sort((a, b) => a[1] - b[1]);
}

export const renewalDeadline = workflowRef<[RenewalDeadlineInput]>(RENEWAL_DEADLINE_WORKFLOW, 'renewal-deadline', 'bulk');
