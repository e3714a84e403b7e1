/**
 * One workflow per contract with a renewal deadline ahead (`renewal-<contractId>`) reminding
 * its owner before the opt-out deadline: a durable timer per reminder day (90, 60, 30 and 7
 * days before, per organization), each reminder sent once (the activity records it and skips
 * one already recorded). A `renewalReschedule` signal (the terms or dates changed) plans
 * again: the timers move to the new deadline. Reminder days already past when planned are not
 * sent late. It ends when nothing is left to remind of: the contract is gone or closed, it no
 * longer has a deadline, or the last reminder went out (a new deadline starts it again).
 */
import { condition, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ContractTermsActivities } from '../activities/contract-terms';
import { rescheduleSignal, upcomingReminders, type RenewalDeadlineInput } from './renewal-deadline.shared';

const { planRenewalReminders, sendRenewalReminder } = proxyActivities<ContractTermsActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20, initialInterval: '5 seconds', maximumInterval: '10 minutes' },
});

export async function renewalDeadlineWorkflow(input: RenewalDeadlineInput): Promise<void> {
  let replan = true;
  setHandler(rescheduleSignal, () => {
    replan = true;
  });
  let queue: Array<[number, number]> = [];
  let deadline: string | null = null;
  for (;;) {
    if (replan) {
      replan = false;
      const plan = await planRenewalReminders(input);
      if (!plan) return;
      deadline = plan.deadline;
      queue = upcomingReminders(plan, Date.now());
    }
    const next = queue[0];
    if (!next || !deadline) {
      // Runs started before 0.6.0 waited here for a signal that may never come; they end too
      // once a signal wakes them (replayed, their history keeps the old path).
      if (replan) continue;
      if (patched('renewal-ends-without-reminders')) return;
      await condition(() => replan);
      continue;
    }
    // Wakes at the reminder's time, or earlier when a signal asks to plan again.
    if (await condition(() => replan, Math.max(1, next[1] - Date.now()))) continue;
    await sendRenewalReminder({ ...input, deadline, days: next[0] });
    queue.shift();
  }
}
