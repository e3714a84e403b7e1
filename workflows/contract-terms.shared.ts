/** What starters of the contract-terms workflow share with it (workflows/contract-terms.ts). */
import { workflowRef } from '../platform/temporal/workflow-ref';

/** Contract terms to extract again: from a document that became ready, or a contract that changed. */
export type RefreshTermsInput = { documentId: string } | { organizationId: string; contractId: string };

/** Extracts a contract's key terms again (from its document of record, or the contract). */
export const contractTerms = workflowRef<[RefreshTermsInput]>('contractTermsWorkflow', 'contract-terms', 'bulk');
/** One per contract event that changed the terms' sources. */
export const contractTermsWorkflowId = (eventId: string) => `terms-${eventId}`;
