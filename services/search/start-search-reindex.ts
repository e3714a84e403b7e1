/**
 * Starting the search reindex (workflows/search-reindex.ts): at worker start when the alias
 * does not name this mapping generation's index (none yet, or an older generation), and on
 * demand for one organization (`POST /admin/search/reindex`).
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../../platform/engines';
import { unavailable } from '../../platform/errors';
import { startWorkflow } from '../../platform/temporal/client';
import { generationReindexId, searchReindex } from '../../workflows/search-reindex.shared';
import { ensureSearchIndex, GENERATION, isBuilt, searchAlias } from './contract-search-index';

/** The rebuild into this generation's index, started (or joined) until one has filled it. */
export async function ensureSearchGeneration(s: Services): Promise<string | null> {
  if ((await ensureSearchIndex(s)) === 'current' && (await isBuilt(s))) return null;
  const workflowId = generationReindexId(searchAlias(s), GENERATION);
  await startWorkflow(s, searchReindex, {
    workflowId,
    args: [{}],
    ifExists: 'join',
    organizationId: 'all',
    recordId: String(GENERATION),
  });
  return workflowId;
}

/** An owner's rebuild of the organization's documents from the store. */
export async function reindexOrganization(s: Services, organizationId: string): Promise<{ workflow_id: string }> {
  const workflowId = `search-reindex-${organizationId}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  try {
    await startWorkflow(s, searchReindex, {
      workflowId,
      args: [{ organizationId }],
      organizationId,
      recordId: organizationId,
    });
  } catch (err) {
    s.logger.error({ err }, 'could not start the search reindex');
    throw unavailable('The workflow engine is unavailable; try again shortly');
  }
  return { workflow_id: workflowId };
}
