/**
 * One workflow per contract (`renewal-<contractId>`) reminding its owner before the opt-out
 * deadline: a durable timer per reminder day (90, 60, 30 and 7 days before, per organization),
 * each reminder sent once (the activity records it and skips one already recorded). A
 * `renewalReschedule` signal (the terms or dates changed) plans again: the timers move to
 * the new deadline. Reminder days already past when planned are not sent late. It ends
 * when the contract is gone.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ContractTermsActivities } from '../activities/contract-terms';
import { rescheduleSignal, type RenewalDeadlineInput, type RenewalPlan } from './renewal-deadline.shared';

const { planRenewalReminders, sendRenewalReminder } = proxyActivities<ContractTermsActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20, initialInterval: '5 seconds', maximumInterval: '10 minutes' },
});

const DAY_MS = 86_400_000;

/** The reminders still to come: [days before, due time], soonest first. */
function upcoming(plan: RenewalPlan, now: number): Array<[number, number]> {
  if (!plan.deadline) return [];
  const deadline = Date.parse(`${plan.deadline}T00:00:00Z`);
  return plan.days
    .filter((d) => !plan.sent.includes(d))
    .map((d): [number, number] => [d, deadline - d * DAY_MS])
    .filter(([, at]) => at >= now)
    .sort((a, b) => a[1] - b[1]);
}

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
      queue = upcoming(plan, Date.now());
    }
    const next = queue[0];
    if (!next || !deadline) {
      await condition(() => replan);
      continue;
    }
    // Wakes at the reminder's time, or earlier when a signal asks to plan again.
    if (await condition(() => replan, Math.max(1, next[1] - Date.now()))) continue;
    await sendRenewalReminder({ ...input, deadline, days: next[0] });
    queue.shift();
  }
}
