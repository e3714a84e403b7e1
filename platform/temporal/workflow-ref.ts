/**
 * A workflow as its starters see it: the type name Temporal runs it by, the `RecordKind` its
 * runs carry, the class of work it is (which task queue it runs on) and (types only) the
 * arguments a start passes. Each workflow declares its ref in its `*.shared.ts`, so starters
 * never import a workflow module, and `startWorkflow` (./client.ts) checks the arguments and
 * picks the queue. Pure: workflow code may import it.
 */

/**
 * Who waits for the work: `interactive` when a person does (signatures and sealing, mail,
 * webhook deliveries, a single upload's ingestion, chat), `bulk` when it can wait (imports,
 * re-extraction of terms, re-embedding, re-indexing, renewal planning, scans and syncs of a
 * whole organization). Each class has a task queue of its own (./task-queues.ts), so a bulk
 * backlog never stands in front of interactive work.
 */
export type WorkClass = 'interactive' | 'bulk';

export interface WorkflowRef<Args extends unknown[] = unknown[]> {
  readonly type: string;
  readonly kind: string;
  readonly workClass: WorkClass;
  /** Never set: carries the argument types. */
  readonly args?: Args;
}

export const workflowRef = <Args extends unknown[]>(
  type: string,
  kind: string,
  workClass: WorkClass = 'interactive',
): WorkflowRef<Args> => ({
  type,
  kind,
  workClass,
});
