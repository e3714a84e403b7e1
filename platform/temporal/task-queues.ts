/**
 * The task queue of each class of work (./workflow-ref.ts): interactive work on
 * `TEMPORAL_TASK_QUEUE`, bulk work on `TEMPORAL_BULK_TASK_QUEUE`, by default the same name
 * with `-bulk` (so a test run's own queue gets a bulk queue of its own). Setting both to one
 * name merges the classes back into one queue, where bulk work only has the lower priority.
 */
import type { Config } from '../config';
import type { WorkClass } from './workflow-ref';

export const WORK_CLASSES = ['interactive', 'bulk'] as const satisfies readonly WorkClass[];

export type TaskQueueConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_BULK_TASK_QUEUE'>;

export function taskQueueOf(config: TaskQueueConfig, workClass: WorkClass): string {
  return workClass === 'bulk' ? (config.TEMPORAL_BULK_TASK_QUEUE ?? `${config.TEMPORAL_TASK_QUEUE}-bulk`) : config.TEMPORAL_TASK_QUEUE;
}

/**
 * Temporal task priority (1 first … 5 last; unset is 3) and fairness: bulk work goes last
 * where it shares a queue, and on its queue each organization is a fairness key, so one
 * tenant's import does not starve another tenant's bulk work (where the server has fairness
 * enabled, `matching.enableFairness`; elsewhere the key is ignored). Activities inherit both.
 */
export function priorityOf(workClass: WorkClass, organizationId: string): { priorityKey: number; fairnessKey: string } | undefined {
  return workClass === 'bulk' ? { priorityKey: 5, fairnessKey: organizationId } : undefined;
}
