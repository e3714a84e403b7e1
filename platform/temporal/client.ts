import {
  Client,
  Connection,
  isGrpcServiceError,
  ScheduleAlreadyRunning,
  type ScheduleDescription,
  type ScheduleOptions,
} from '@temporalio/client';
import { status } from '@grpc/grpc-js';
import { Types } from 'mongoose';
import { grpc } from '@temporalio/proto';
import {
  TypedSearchAttributes,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type SignalDefinition,
} from '@temporalio/common';
import type { Config } from '../config';
import { unavailable } from '../errors';
import type { Logger } from '../logger';
import { RecordKind, recordSearchAttributes } from './search-attributes';
import { priorityOf, taskQueueOf, WORK_CLASSES, type TaskQueueConfig } from './task-queues';
import type { WorkClass, WorkflowRef } from './workflow-ref';

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

/** What starting a workflow needs of a process's services (structural, so this module needs no `Engines`). */
export interface TemporalDeps {
  temporal: Client;
  temporalConnection: Connection;
  config: TaskQueueConfig;
}

/** How long a start may wait for Temporal before the caller gives up (a relay step leaves the event for the loop; a route answers 503). */
export const TEMPORAL_DEADLINE_MS = 5000;

export interface StartOptions<Args extends unknown[]> {
  /** Names the work, so a repeated start finds the first run. */
  workflowId: string;
  args: Args;
  /** For the search attributes (`OrganizationId`, `RecordId`); the ref gives `RecordKind`. */
  organizationId: string;
  recordId: string;
  /** The class of work, when this start differs from the workflow's own (e.g. an import's ingestion of a file is bulk). */
  workClass?: WorkClass;
  /**
   * When the id was used before: `reject` (default) starts nothing, also after the first run
   * completed (REJECT_DUPLICATE), and answers false; `join` joins a running one or starts a new run.
   */
  ifExists?: 'reject' | 'join';
  /** Signal the workflow, starting it first when it is not running (signalWithStart; `ifExists` does not apply). */
  signal?: { signal: SignalDefinition<unknown[]>; args: unknown[] };
}

/** The one way to start a workflow: typed by its ref (`workflows/*.shared.ts`). Returns false when the id was already taken. */
export async function startWorkflow<Args extends unknown[]>(
  s: TemporalDeps,
  ref: WorkflowRef<Args>,
  opts: StartOptions<Args>,
): Promise<boolean> {
  const policies =
    opts.ifExists === 'join'
      ? ({ workflowIdReusePolicy: 'ALLOW_DUPLICATE', workflowIdConflictPolicy: 'USE_EXISTING' } as const)
      : ({ workflowIdReusePolicy: 'REJECT_DUPLICATE' } as const);
  const workClass = opts.workClass ?? ref.workClass;
  const priority = priorityOf(workClass, opts.organizationId);
  const common = {
    taskQueue: taskQueueOf(s.config, workClass),
    workflowId: opts.workflowId,
    args: opts.args,
    typedSearchAttributes: recordSearchAttributes(ref.kind, opts.organizationId, opts.recordId),
    ...(priority ? { priority } : {}),
  };
  const { signal } = opts;
  if (signal) {
    await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      s.temporal.workflow.signalWithStart(ref.type, { ...common, signal: signal.signal, signalArgs: signal.args }),
    );
    return true;
  }
  try {
    await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      s.temporal.workflow.start(ref.type, { ...common, ...policies }),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/**
 * The one way to signal a running workflow, typed by the signal its `*.shared.ts` declares,
 * within the Temporal deadline: false when none runs under that id. Throws when Temporal
 * cannot take it: the caller decides whether the stored state lets the workflow catch up
 * (log) or the request fails (503).
 */
export async function signalWorkflow<Args extends unknown[]>(
  s: TemporalDeps,
  workflowId: string,
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<boolean> {
  try {
    await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      s.temporal.workflow.getHandle(workflowId).signal(signal, ...args),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * The one way to ask a workflow to cancel (it runs its cleanup), within the Temporal deadline:
 * false when none runs under that id. Throws when Temporal cannot take it.
 */
export async function cancelWorkflow(s: TemporalDeps, workflowId: string): Promise<boolean> {
  try {
    await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () => s.temporal.workflow.getHandle(workflowId).cancel());
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Whether a run of the workflow is going on (the newest run of the id); throws when Temporal cannot answer. */
export async function workflowRunning(s: TemporalDeps, workflowId: string): Promise<boolean> {
  try {
    const described = await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      s.temporal.workflow.getHandle(workflowId).describe(),
    );
    return described.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Signals every running workflow of `ref` on this deployment's queues (both classes: runs
 * started before the queues were split sit on the interactive one), as one Temporal batch
 * operation paced at `perSecond`. `jobId` names the batch: a second call with the same id
 * starts nothing and answers false, so a process can call it at every start.
 */
export async function signalAllRunning(
  s: TemporalDeps,
  ref: WorkflowRef,
  signal: SignalDefinition<[]>,
  { jobId, reason, perSecond }: { jobId: string; reason: string; perSecond: number },
): Promise<boolean> {
  const queues = [...new Set(WORK_CLASSES.map((c) => taskQueueOf(s.config, c)))].map((q) => `TaskQueue = ${JSON.stringify(q)}`);
  try {
    await s.temporalConnection.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () =>
      s.temporal.workflowService.startBatchOperation({
        namespace: s.temporal.options.namespace,
        jobId,
        reason,
        visibilityQuery: `WorkflowType = ${JSON.stringify(ref.type)} AND ExecutionStatus = "Running" AND (${queues.join(' OR ')})`,
        maxOperationsPerSecond: perSecond,
        signalOperation: { signal: signal.name },
      }),
    );
    return true;
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === status.ALREADY_EXISTS) return false;
    throw err;
  }
}

/**
 * A new record's id and the id of the workflow that will carry it, made before the record is
 * saved so the record is written once, with both.
 */
export function newWorkflowRecord(workflowIdOf: (recordId: string) => string): { _id: Types.ObjectId; workflow_id: string } {
  const _id = new Types.ObjectId();
  return { _id, workflow_id: workflowIdOf(_id.toHexString()) };
}

/**
 * Starts the workflow that carries a record just saved. Without its workflow the record would
 * stay pending for ever, so when Temporal cannot take the start, `discard` removes the record
 * and the caller gets 503; `notKept` tells the client what that meant (e.g. "nothing was sent").
 */
export async function startWorkflowOrDiscard<Args extends unknown[]>(
  s: TemporalDeps & { logger: Logger },
  ref: WorkflowRef<Args>,
  opts: StartOptions<Args>,
  { discard, notKept }: { discard: () => Promise<unknown>; notKept?: string },
): Promise<void> {
  try {
    await startWorkflow(s, ref, opts);
  } catch (err) {
    await discard();
    s.logger.error({ err, workflowId: opts.workflowId }, 'could not start the workflow; the record was discarded');
    throw unavailable(`The workflow engine is unavailable; ${notKept ? `${notKept}, ` : ''}try again shortly`);
  }
}

/** The start a Temporal Schedule makes, typed by the same ref, on its class's queue (its runs carry only `RecordKind`). */
export function scheduledStart<Args extends unknown[]>(
  config: TaskQueueConfig,
  ref: WorkflowRef<Args>,
  opts: { workflowId: string; args: Args },
) {
  return {
    type: 'startWorkflow' as const,
    workflowType: ref.type,
    workflowId: opts.workflowId,
    taskQueue: taskQueueOf(config, ref.workClass),
    args: opts.args,
    typedSearchAttributes: new TypedSearchAttributes([{ key: RecordKind, value: ref.kind }]),
  };
}

/** Ends a workflow at once (its record is gone, so nothing it would still write is wanted); a finished or unknown one is left as it is. */
export async function terminateWorkflow(s: TemporalDeps, workflowId: string, reason: string): Promise<void> {
  await s.temporalConnection
    .withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, () => s.temporal.workflow.getHandle(workflowId).terminate(reason))
    .catch(() => undefined);
}

/** Creates a Temporal Schedule, or brings an existing one to `def`, keeping what `keep` takes from its current state. */
export async function upsertSchedule(
  client: Client,
  scheduleId: string,
  def: Omit<ScheduleOptions, 'scheduleId'>,
  keep: (prev: ScheduleDescription) => Partial<NonNullable<ScheduleOptions['state']>>,
): Promise<void> {
  try {
    await client.schedule.create({ scheduleId, ...def });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...def, state: { ...def.state, ...keep(prev) } }));
  }
}
