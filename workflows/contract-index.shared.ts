/** What starters of the contract index workflows share with them. */
import { defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

/** `POST /chat/sync-contracts`: every contract of an organization. */
export const syncContracts = workflowRef<[{ organizationId: string }]>('syncContractsWorkflow', 'sync-contracts');

export interface ContractIndexInput {
  organizationId: string;
  contractIds?: string[];
}

/** Contracts of one organization after their events (`index-contracts-<organizationId>`). */
export const contractIndex = workflowRef<[ContractIndexInput]>('contractIndexWorkflow', 'contract-index');

/** A contract changed: its organization's re-index workflow takes it into its next batch. */
export const contractChangedSignal = defineSignal<[{ contractId: string }]>('contractChanged');
