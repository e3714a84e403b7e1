/**
 * Whether workers poll the task queue, from Temporal's DescribeTaskQueue (workflow and
 * activity task queues): an API whose uploads nobody processes is degraded, not healthy.
 * Temporal lists a poller for minutes after its worker died, so only pollers seen in the
 * last POLLED_WITHIN_MS count; an idle worker's long poll is renewed every minute or so.
 * The answer is cached for CACHE_MS per queue, so health checks cost Temporal little.
 */
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export interface WorkerPollers {
  /** Workers that polled for workflow tasks within POLLED_WITHIN_MS. */
  workflow_pollers: number;
  /** Workers that polled for activity tasks within POLLED_WITHIN_MS. */
  activity_pollers: number;
}

/** A protobuf Timestamp in milliseconds (0 when absent: a poller never seen counts as long gone). */
function timestampMs(ts: temporal.api.taskqueue.v1.IPollerInfo['lastAccessTime']): number {
  return ts ? Number(ts.seconds ?? 0) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : 0;
}

export const POLLED_WITHIN_MS = 2 * 60_000;
const CACHE_MS = 5000;
const { TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY } = temporal.api.enums.v1.TaskQueueType;

type Answers = Map<string, { at: number; answer: Promise<WorkerPollers | null> }>;
/** Per connection (tests run Temporal servers of their own), per namespace and queue. */
const cache = new WeakMap<Connection, Answers>();

async function describe(connection: Connection, namespace: string, taskQueue: string, timeoutMs: number): Promise<WorkerPollers | null> {
  const recent = async (taskQueueType: temporal.api.enums.v1.TaskQueueType) => {
    const res = await connection.withDeadline(Date.now() + timeoutMs, () =>
      connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType }),
    );
    return (res.pollers ?? []).filter((p) => Date.now() - timestampMs(p.lastAccessTime) < POLLED_WITHIN_MS).length;
  };
  try {
    const [workflow, activity] = await Promise.all([recent(TASK_QUEUE_TYPE_WORKFLOW), recent(TASK_QUEUE_TYPE_ACTIVITY)]);
    return { workflow_pollers: workflow, activity_pollers: activity };
  } catch {
    return null;
  }
}

/** Recent pollers of `taskQueue`, or null when Temporal did not answer within `timeoutMs`. */
export function workerPollers(
  connection: Connection,
  namespace: string,
  taskQueue: string,
  timeoutMs: number,
): Promise<WorkerPollers | null> {
  const key = `${namespace}/${taskQueue}`;
  const answers = cache.get(connection) ?? (new Map() as Answers);
  cache.set(connection, answers);
  const hit = answers.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.answer;
  const answer = describe(connection, namespace, taskQueue, timeoutMs);
  answers.set(key, { at: Date.now(), answer });
  return answer;
}
