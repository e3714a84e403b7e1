/** What the worker's start of the embedding migration shares with the workflow. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const reembed = workflowRef<[{ done?: number }]>('reembedWorkflow', 'reembed', 'bulk');
