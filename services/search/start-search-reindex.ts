/**
 * Starting the search reindex (workflows/search-reindex.ts): at worker start when the alias
 * does not name this mapping generation's index (none yet, or an older generation), and on
 * demand for one organization (`POST /admin/search/reindex`), one at a time per organization.
 */
import { randomBytes } from 'node:crypto';
import type { Engines } from '../../platform/engines';
import { retryAfter, unavailable } from '../../platform/errors';
import { searchErrors } from './errors';
import { ClaimBusyError, extendClaim, releaseClaim, takeClaim, type HeldClaim } from '../../platform/claims';
import { startWorkflow } from '../../platform/temporal/client';
import { generationReindexId, organizationReindexId, searchReindex } from '../../workflows/search-reindex.shared';
import { ensureSearchIndex, GENERATION, isBuilt, searchAlias } from './contract-search-index';
import { pruneSearchDocs } from './rebuild-search-index';

/** The rebuild into this generation's index, started (or joined) until one has filled it. */
export async function ensureSearchGeneration(s: Engines): Promise<string | null> {
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

/**
 * One reindex per organization: its claim (platform/claims.ts), taken before the workflow
 * starts, held while it runs (each part renews the lease, so a run whose worker died frees it
 * after the lease) and for SEARCH_REINDEX_COOLDOWN_SECONDS after it ends. Its holder is the
 * workflow's id, which the workflow's activities know.
 */
const REINDEX_CLAIM = 'search-reindex';
/** A running reindex's lease: parts last up to 30 s and their retries wait up to 30 s, so a live run renews it well within. */
const RUNNING_LEASE_MS = 5 * 60_000;

const reindexClaim = (organizationId: string, workflowId: string): HeldClaim => ({
  scope: REINDEX_CLAIM,
  key: organizationId,
  holder: workflowId,
});

/** An owner's rebuild of the organization's documents from the store; 409 while another runs or cools down. */
export async function reindexOrganization(s: Engines, organizationId: string): Promise<{ workflow_id: string }> {
  const workflowId = organizationReindexId(organizationId, `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`);
  try {
    await takeClaim(REINDEX_CLAIM, organizationId, { leaseMs: RUNNING_LEASE_MS, holder: workflowId, detail: workflowId });
  } catch (err) {
    if (!(err instanceof ClaimBusyError)) throw err;
    const until = err.held?.expires_at ?? new Date();
    throw searchErrors.search_reindex_running(
      `The reindex ${err.held?.detail ?? 'of this organization'} (started ${err.held?.taken_at.toISOString() ?? 'just now'}) is running or ended less than ${s.config.SEARCH_REINDEX_COOLDOWN_SECONDS} s ago; another may start after ${until.toISOString()}`,
      retryAfter(until.getTime() - Date.now()),
    );
  }
  try {
    await startWorkflow(s, searchReindex, {
      workflowId,
      args: [{ organizationId }],
      organizationId,
      recordId: organizationId,
    });
  } catch (err) {
    await releaseClaim(reindexClaim(organizationId, workflowId));
    s.logger.error({ err }, 'could not start the search reindex');
    throw unavailable('The workflow engine is unavailable; try again shortly');
  }
  return { workflow_id: workflowId };
}

/** A part of an organization's reindex renews its claim's lease. */
export async function holdOrganizationReindex(s: Engines, organizationId: string, workflowId: string): Promise<void> {
  if (!(await extendClaim(reindexClaim(organizationId, workflowId), RUNNING_LEASE_MS)))
    s.logger.warn({ organizationId, workflowId }, 'the reindex lost its claim (its lease ended); another may run beside it');
}

/** The end of an organization's reindex: the documents it did not write are removed, and its claim stays for the cooldown. */
export async function endOrganizationReindex(s: Engines, organizationId: string, before: string, workflowId: string): Promise<number> {
  const pruned = await pruneSearchDocs(s, organizationId, before);
  const claim = reindexClaim(organizationId, workflowId);
  const cooldownMs = s.config.SEARCH_REINDEX_COOLDOWN_SECONDS * 1000;
  if (cooldownMs > 0) await extendClaim(claim, cooldownMs);
  else await releaseClaim(claim);
  return pruned;
}
