/**
 * Activities of the daily contract schedules (services/contracts/expire-ended-contracts.ts,
 * remind-renewals.ts), each taking the day from the workflow and working a page at a time,
 * and the finishing of a recorded contract deletion (services/contract-deletion/delete-contract.ts).
 */
import type { Engines } from '../platform/engines';
import { finishContractDeletion } from '../services/contract-deletion/delete-contract';
import { expireEndedContracts } from '../services/contracts/expire-ended-contracts';
import { remindRenewals } from '../services/contracts/remind-renewals';
import type { ContractDeletion } from '../workflows/contract-deletion.shared';
import type { SweepPage, SweepResult } from '../workflows/contract-schedules.shared';

export function createContractActivities(s: Engines) {
  return {
    async finishContractDeletion(input: ContractDeletion): Promise<void> {
      await finishContractDeletion(s, input);
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
