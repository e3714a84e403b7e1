/** Re-indexing every contract of an organization for the chat, as one workflow. */
import { randomBytes } from 'node:crypto';
import type { Engines } from '../../platform/engines';
import { unavailable } from '../../platform/errors';
import { startWorkflow } from '../../platform/temporal/client';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { syncContracts, syncContractsWorkflowId } from '../../workflows/contract-index.shared';

export async function reindexContracts(s: Engines, organizationId: string): Promise<{ workflow_id: string; contracts: number }> {
  const contracts = await Contract.countDocuments(orgFilter(organizationId));
  const workflowId = syncContractsWorkflowId(organizationId, `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`);
  try {
    await startWorkflow(s, syncContracts, { workflowId, args: [{ organizationId }], organizationId, recordId: organizationId });
  } catch (err) {
    s.logger.error({ err }, 'could not start the contract sync');
    throw unavailable('The workflow engine is unavailable; try again shortly');
  }
  return { workflow_id: workflowId, contracts };
}
