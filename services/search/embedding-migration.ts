/**
 * Starts the embedding-model migration (workflows/reembed.ts) for this deployment: one
 * run per model and task queue at a time, joined when it is already running, started
 * again at a later worker start (a model switched back and forth migrates each time).
 */
import type { Engines } from '../../platform/engines';
import { startWorkflow } from '../../platform/temporal/client';
import { reembed, reembedWorkflowId } from '../../workflows/reembed.shared';

const reembedWorkflowIdOf = (s: Pick<Engines, 'config' | 'ai'>) => reembedWorkflowId(s.ai.models.embedding, s.config.TEMPORAL_TASK_QUEUE);

export async function startEmbeddingMigration(s: Engines): Promise<string> {
  const workflowId = reembedWorkflowIdOf(s);
  await startWorkflow(s, reembed, {
    workflowId,
    args: [{}],
    ifExists: 'join',
    organizationId: 'all',
    recordId: s.ai.models.embedding,
  });
  return workflowId;
}
