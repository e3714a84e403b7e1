/** The daily sweeps as their schedules start them (the kind is the schedule's name). */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const contractExpirySweep = workflowRef<[Record<string, never>]>('contractExpirySweepWorkflow', 'contract-expiry-sweep', 'bulk');
export const renewalReminders = workflowRef<[Record<string, never>]>('renewalRemindersWorkflow', 'renewal-reminders', 'bulk');
