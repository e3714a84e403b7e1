/** What starters of the contract index workflows share with them. */
import { defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

/** `POST /chat/sync-contracts`: every contract of an organization. */
export const syncContracts = workflowRef<[{ organizationId: string }]>('syncContractsWorkflow', 'sync-contracts', 'bulk');
/** One per request: `run` tells the requests apart. */
export const syncContractsWorkflowId = (organizationId: string, run: string) => `sync-contracts-${organizationId}-${run}`;

export interface ContractIndexInput {
  organizationId: string;
  contractIds?: string[];
  /** Contracts whose search document only is due (their text did not change). */
  searchIds?: string[];
}

/** Contracts of one organization after their events (`index-contracts-<organizationId>`). */
/** One per organization: the changed contracts of events that come together. */
export const contractIndexWorkflowId = (organizationId: string) => `index-contracts-${organizationId}`;
export const contractIndex = workflowRef<[ContractIndexInput]>('contractIndexWorkflow', 'contract-index', 'bulk');

/**
 * Contracts changed: its organization's re-index workflow takes them into its next batch. The
 * relay sends the contracts of the events that came together in one signal; `contractId` is the
 * previous release's form (one per event), still read from workflows it signalled.
 */
export const contractChangedSignal =
  defineSignal<[{ contractIds: string[]; searchOnly?: boolean } | { contractId: string }]>('contractChanged');
