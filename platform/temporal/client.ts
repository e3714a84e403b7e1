import { Client, Connection } from '@temporalio/client';
import { grpc } from '@temporalio/proto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Config } from '../config';
import { recordSearchAttributes } from './search-attributes';

/**
 * The Temporal client. The connection is lazy so the API starts (and reports
 * `workflow_engine: disconnected`) while Temporal is down, and reconnects when it returns.
 */
export function createTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>) {
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  return { connection, client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }) };
}

export async function pingTemporal(connection: Connection, timeoutMs: number): Promise<boolean> {
  try {
    const res = await connection.withDeadline(Date.now() + timeoutMs, () => connection.healthService.check({}));
    return res.status === grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING;
  } catch {
    return false;
  }
}

/** What starting a workflow needs of a process's services (structural, so this module needs no `Services`). */
export interface TemporalDeps {
  temporal: Client;
  temporalConnection: Connection;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>;
}

/** How long one relay step may wait for Temporal before the event is left for the loop. */
export const TEMPORAL_DEADLINE_MS = 5000;

/**
 * Starts a workflow whose id names the work, so a repeated start is a no-op (also after
 * the first run completed: REJECT_DUPLICATE). Returns false when it already existed.
 */
export async function startOnce(
  s: TemporalDeps,
  opts: {
    workflowType: string; workflowId: string; args: unknown[]; kind: string; organizationId: string; recordId: string;
    /** Temporal task priority, 1 (first) to 5 (last), default 3: background work yields to deliveries in a backlog. */
    priorityKey?: number;
  },
): Promise<boolean> {
  try {
    await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      s.temporal.workflow.start(opts.workflowType, {
        taskQueue: s.config.TEMPORAL_TASK_QUEUE,
        workflowId: opts.workflowId,
        args: opts.args,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: recordSearchAttributes(opts.kind, opts.organizationId, opts.recordId),
        ...(opts.priorityKey ? { priority: { priorityKey: opts.priorityKey } } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
