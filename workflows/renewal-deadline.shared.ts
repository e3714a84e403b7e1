/** What the renewal-deadline workflow and those who start or signal it share. */
import { defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

export const RENEWAL_DEADLINE_WORKFLOW = 'renewalDeadlineWorkflow';
export const renewalWorkflowId = (contractId: string) => `renewal-${contractId}`;

export interface RenewalDeadlineInput {
  organizationId: string;
  contractId: string;
}

/** The terms, the contract's dates or the organization's reminder days changed: plan again. */
export const rescheduleSignal = defineSignal('renewalReschedule');

export interface RenewalPlan {
  /** YYYY-MM-DD, or null when the contract does not renew automatically or its dates are unknown. */
  deadline: string | null;
  /** Days before the deadline to remind at, e.g. [90, 60, 30, 7]. */
  days: number[];
  /** Those already reminded for this deadline. */
  sent: number[];
}

/** Contract terms to extract again: from a document that became ready, or a contract that changed. */
export type RefreshTermsInput = { documentId: string } | { organizationId: string; contractId: string };

export const renewalDeadline = workflowRef<[RenewalDeadlineInput]>(RENEWAL_DEADLINE_WORKFLOW, 'renewal-deadline', 'bulk');
/** Extracts a contract's key terms again (from its document of record, or the contract). */
export const contractTerms = workflowRef<[RefreshTermsInput]>('contractTermsWorkflow', 'contract-terms', 'bulk');
