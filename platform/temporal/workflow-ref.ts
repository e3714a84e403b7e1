/**
 * A workflow as its starters see it: the type name Temporal runs it by, the `RecordKind` its
 * runs carry, and (types only) the arguments a start passes. Each workflow declares its ref in
 * its `*.shared.ts`, so starters never import a workflow module, and `startWorkflow`
 * (./client.ts) checks the arguments. Pure: workflow code may import it.
 */
export interface WorkflowRef<Args extends unknown[] = unknown[]> {
  readonly type: string;
  readonly kind: string;
  /** Never set: carries the argument types. */
  readonly args?: Args;
}

export const workflowRef = <Args extends unknown[]>(type: string, kind: string): WorkflowRef<Args> => ({ type, kind });
