/**
 * The daily contract sweeps started by Temporal Schedules (services/contracts/schedules.ts): expire
 * active contracts past their end date, and record renewal reminders. Each pages through
 * the contracts of all organizations and continues as new when its history grows long.
 * Both are safe to run again: the activities change and remind each contract once.
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ContractActivities } from '../activities/contracts';
import type { SweepPage, SweepResult } from './contract-schedules.shared';

export const SWEEP_PAGE = 200;

const { expireEndedContracts, remindRenewals } = proxyActivities<ContractActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10, initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

export interface SweepInput {
  /** Carried across continue-as-new: the run's day and where it was. */
  cursor?: { asOf: string; afterId: string; done: number };
}

async function sweep(
  step: (page: SweepPage) => Promise<SweepResult>,
  input: SweepInput,
  again: (next: SweepInput) => Promise<never>,
): Promise<number> {
  // Workflow time is deterministic; the whole run (and its continuations) uses one day.
  const asOf = input.cursor?.asOf ?? new Date().toISOString();
  let afterId: string | null = input.cursor?.afterId ?? null;
  let done = input.cursor?.done ?? 0;
  for (;;) {
    const page = await step({ asOf, afterId, limit: SWEEP_PAGE });
    done += page.done;
    if (!page.nextAfterId) return done;
    afterId = page.nextAfterId;
    if (workflowInfo().continueAsNewSuggested) await again({ cursor: { asOf, afterId, done } });
  }
}

/** Active contracts whose end date has passed become expired, with one `contract.updated` each. Returns how many. */
export async function contractExpirySweepWorkflow(input: SweepInput = {}): Promise<number> {
  return sweep(expireEndedContracts, input, (next) => continueAsNew<typeof contractExpirySweepWorkflow>(next));
}

/** One `contract.renewal_due` per active contract and end date within the reminder window. Returns how many. */
export async function renewalRemindersWorkflow(input: SweepInput = {}): Promise<number> {
  return sweep(remindRenewals, input, (next) => continueAsNew<typeof renewalRemindersWorkflow>(next));
}
