/**
 * Starts the embedding-model migration (workflows/reembed.ts) for this deployment: one
 * run per model and task queue at a time, joined when it is already running, started
 * again at a later worker start (a model switched back and forth migrates each time).
 */
import type { Services } from '../../platform/services';
import { recordSearchAttributes } from '../../platform/temporal/search-attributes';
import type { reembedWorkflow } from '../../workflows/reembed';

const WORKFLOW_TYPE: (typeof reembedWorkflow)['name'] = 'reembedWorkflow';

export const reembedWorkflowId = (s: Pick<Services, 'config' | 'ai'>) => `reembed-${s.ai.models.embedding}@${s.config.TEMPORAL_TASK_QUEUE}`;

export async function startEmbeddingMigration(s: Services): Promise<string> {
  const workflowId = reembedWorkflowId(s);
  const handle = await s.temporal.workflow.start(WORKFLOW_TYPE, {
    taskQueue: s.config.TEMPORAL_TASK_QUEUE,
    workflowId,
    args: [{}],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: recordSearchAttributes('reembed', 'all', s.ai.models.embedding),
    // Background work: deliveries and ingestion go first in a backlog.
    priority: { priorityKey: 5 },
  });
  return handle.workflowId;
}
