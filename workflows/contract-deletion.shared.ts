/** What starters of the contract deletion workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface ContractDeletion {
  organizationId: string;
  contractId: string;
  /** Who deleted it, for the cancelled requests' audit trails. */
  by: string;
}

export const contractDeletion = workflowRef<[ContractDeletion]>('contractDeletionWorkflow', 'contract-deletion');
export const contractDeletionWorkflowId = (eventId: string) => `contract-deletion-${eventId}`;
