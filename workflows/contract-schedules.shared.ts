/** The daily sweeps as their schedules start them (the kind is the schedule's name). */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const contractExpirySweep = workflowRef<[Record<string, never>]>('contractExpirySweepWorkflow', 'contract-expiry-sweep', 'bulk');
export const renewalReminders = workflowRef<[Record<string, never>]>('renewalRemindersWorkflow', 'renewal-reminders', 'bulk');

/** One page of a sweep, as the workflow asks for it. */
export interface SweepPage {
  /** The workflow's current time (ISO). */
  asOf: string;
  limit: number;
  /** Resume after this contract id. */
  afterId?: string | null;
}

export interface SweepResult {
  /** Contracts changed or reminded in this page. */
  done: number;
  /** The last contract id looked at, or null when the page was the last. */
  nextAfterId: string | null;
}
