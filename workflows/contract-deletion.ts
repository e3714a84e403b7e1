/**
 * Finishes a recorded contract deletion (services/contracts/contract-deletion.ts): closes its records again,
 * which completes a deletion whose API process stopped after the event, and removes its
 * chunks from the index. Retried until the store and Elasticsearch take it.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ContractActivities } from '../activities/contracts';
import type { ContractDeletion } from './contract-deletion.shared';

const { finishContractDeletion } = proxyActivities<ContractActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
});

export async function contractDeletionWorkflow(input: ContractDeletion): Promise<void> {
  await finishContractDeletion(input);
}
