/**
 * Activities of the daily contract schedules (services/contracts/expire-ended-contracts.ts,
 * remind-renewals.ts), each taking the day from the workflow and working a page at a time,
 * and the finishing of a recorded contract deletion (services/contracts/contract-deletion.ts).
 */
import type { Services } from '../platform/engines';
import { closeContract } from '../services/contracts/contract-deletion';
import { expireEndedContracts } from '../services/contracts/expire-ended-contracts';
import { remindRenewals } from '../services/contracts/remind-renewals';
import type { ContractDeletion } from '../workflows/contract-deletion.shared';
import type { SweepPage, SweepResult } from '../workflows/contract-schedules.shared';
import { removeContract } from '../services/search/contract-index';

export function createContractActivities(s: Services) {
  return {
    /** The store part of a deletion again (idempotent), then the contract's chunks out of the index. */
    async finishContractDeletion(input: ContractDeletion): Promise<void> {
      await closeContract(s, input);
      await removeContract(s, input.organizationId, input.contractId);
    },

    async expireEndedContracts(page: SweepPage): Promise<SweepResult> {
      return expireEndedContracts(page);
    },

    async remindRenewals(page: SweepPage): Promise<SweepResult> {
      return remindRenewals(s, page);
    },
  };
}

export type ContractActivities = ReturnType<typeof createContractActivities>;
