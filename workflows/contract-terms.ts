/** Extracts a contract's key terms again (after its document became ready or its content changed) and moves its renewal reminders. */
import { proxyActivities } from '@temporalio/workflow';
import type { ContractTermsActivities } from '../activities/contract-terms';
import type { RefreshTermsInput } from './contract-terms.shared';

const { refreshContractTerms } = proxyActivities<ContractTermsActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 10, initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

export async function contractTermsWorkflow(input: RefreshTermsInput): Promise<void> {
  await refreshContractTerms(input);
}
