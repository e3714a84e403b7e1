/** What the worker's start of the embedding migration shares with the workflow. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const reembed = workflowRef<[{ done?: number }]>('reembedWorkflow', 'reembed', 'bulk');
/** One per model and task queue: each deployment re-embeds what another model made. */
export const reembedWorkflowId = (model: string, taskQueue: string) => `reembed-${model}@${taskQueue}`;
