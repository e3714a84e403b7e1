/**
 * The Temporal Schedules of the daily contract sweeps, created or brought up to date by
 * every worker at start (so a changed definition ships with the code). One pair per
 * deployment (named by its interactive task queue): a schedule starts its workflows on the
 * deployment's bulk queue.
 */
import { ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { scheduledStart, upsertSchedule } from '../../platform/temporal/client';
import type { TaskQueueConfig } from '../../platform/temporal/task-queues';
import { contractExpirySweep, renewalReminders } from '../../workflows/contract-schedules.shared';

export const SCHEDULES = [
  // Just after midnight UTC: end dates are UTC days, and a contract is in force through its end date.
  { name: 'contract-expiry-sweep', workflow: contractExpirySweep, at: { hour: 0, minute: 5 } },
  { name: 'renewal-reminders', workflow: renewalReminders, at: { hour: 8, minute: 0 } },
] as const;

export type ScheduleName = (typeof SCHEDULES)[number]['name'];

export const scheduleId = (name: ScheduleName, taskQueue: string) => `${name}@${taskQueue}`;

type Definition = Omit<ScheduleOptions, 'scheduleId'>;

function definition(s: (typeof SCHEDULES)[number], config: TaskQueueConfig): Definition {
  return {
    spec: { calendars: [{ hour: s.at.hour, minute: s.at.minute, comment: 'daily, UTC' }] },
    // Temporal appends the scheduled time to the id, so each day's run has an id of its own.
    action: scheduledStart(config, s.workflow, { workflowId: scheduleId(s.name, config.TEMPORAL_TASK_QUEUE), args: [{}] }),
    policies: {
      // A run still going (or waiting for a worker) is not joined by a second one...
      overlap: ScheduleOverlapPolicy.SKIP,
      // ...and a run missed while the server was down is taken when it returns. The sweeps
      // look at everything due, not only today's, so one late run puts the state right.
      catchupWindow: '1 day',
    },
    state: { note: 'created by the worker at start (services/contracts/schedules.ts)' },
  };
}

/** Creates the schedules, or updates them to this code's definition when they exist. Returns their ids. */
export async function ensureSchedules(client: Client, config: TaskQueueConfig): Promise<string[]> {
  const ids: string[] = [];
  for (const s of SCHEDULES) {
    const id = scheduleId(s.name, config.TEMPORAL_TASK_QUEUE);
    // Keep a pause an operator set; everything else follows the code.
    await upsertSchedule(client, id, definition(s, config), (prev) => ({ paused: prev.state.paused, note: prev.state.note }));
    ids.push(id);
  }
  return ids;
}
