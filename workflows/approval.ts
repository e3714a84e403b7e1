/**
 * One workflow per approval request (`approval-<approvalId>`): it owns only what takes time.
 * Decisions are written by the API into the store; this reads the request whenever it wakes
 * (a signal after a change, or a timer), mails the approvers of a step when it becomes active,
 * reminds them every `reminder_days` (at most MAX_REMINDERS times per step), and escalates a
 * step still active after `escalation_days` to its manager role, once. The days count from
 * when this workflow saw the step become active, in workflow time. Every activity is
 * idempotent, so a replay after a worker restart sends nothing twice. It ends when the
 * request is approved, rejected, overridden or superseded.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approvals';
import { approvalChangedSignal, type ApprovalWorkflowInput } from './approval.shared';

const { planApproval, notifyApprovers, sendApprovalReminder, escalateApproval } = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20, initialInterval: '5 seconds', maximumInterval: '10 minutes' },
});

const DAY_MS = 86_400_000;
const MAX_REMINDERS = 10;

export async function approvalWorkflow(input: ApprovalWorkflowInput): Promise<void> {
  let changed = false;
  setHandler(approvalChangedSignal, () => {
    changed = true;
  });
  let step: number | null = null;
  let since = 0;
  let reminders = 0;
  let escalated = false;
  for (;;) {
    changed = false;
    const plan = await planApproval(input);
    if (!plan.open || plan.step === null) return;
    if (plan.step !== step) {
      step = plan.step;
      since = Date.now();
      reminders = 0;
      escalated = plan.escalated;
      await notifyApprovers({ ...input, step });
    }
    const reminderAt = reminders < MAX_REMINDERS ? since + (reminders + 1) * plan.reminderDays * DAY_MS : Infinity;
    const escalateAt = plan.escalationDays !== null && !escalated ? since + plan.escalationDays * DAY_MS : Infinity;
    const next = Math.min(reminderAt, escalateAt);
    if (next === Infinity) {
      await condition(() => changed);
      continue;
    }
    // Wakes at the next reminder or escalation, or earlier when the request changes.
    if (await condition(() => changed, Math.max(1, next - Date.now()))) continue;
    if (escalateAt <= reminderAt) {
      escalated = await escalateApproval({ ...input, step });
      // Lost to a concurrent write: plan again at once (the step may have moved on).
      if (!escalated) continue;
    } else {
      reminders++;
      await sendApprovalReminder({ ...input, step, n: reminders });
    }
  }
}
