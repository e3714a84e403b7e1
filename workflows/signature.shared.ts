/**
 * What the signature workflow shares with the API and its activities: its input, its
 * signals and query, and the stored state it reads. No I/O: the API imports this, never
 * the workflow module.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { workflowRef } from '../platform/temporal/workflow-ref';

export type SignerState = 'pending' | 'viewed' | 'signed' | 'declined';
export type RequestState = 'pending' | 'completed' | 'declined' | 'expired' | 'cancelled';

export interface SignatureWorkflowInput {
  signatureId: string;
  signerIds: string[];
  /** Epoch milliseconds of the deadline. */
  expiresAtMs: number;
  reminderIntervalMs: number;
  /** Reminder rounds at most (SIGNATURE_REMINDERS_MAX); absent in requests sent before the cap, whose activity still holds them to it. */
  maxReminders?: number;
}

export interface SignatureStatus {
  status: RequestState;
  signers: Array<{ id: string; status: SignerState }>;
  expires_at_ms: number;
  reminders_sent: number;
}

/** The request as stored; the workflow reads it to catch up on acts whose signal was lost. */
export interface StoredSignatureState {
  status: RequestState;
  signers: Array<{ id: string; status: SignerState }>;
}

export const viewedSignal = defineSignal<[{ signerId: string }]>('viewed');
export const signedSignal = defineSignal<[{ signerId: string }]>('signed');
export const declinedSignal = defineSignal<[{ signerId: string }]>('declined');
export const cancelSignal = defineSignal<[{ reason?: string }]>('cancel');
/** An operator's retry after sealing the signed PDF failed (POST /signatures/:id/seal). */
export const retrySealSignal = defineSignal('retry-seal');
export const statusQuery = defineQuery<SignatureStatus>('status');

/** The id of a request's workflow: the one way to address it. */
export const signatureWorkflowId = (signatureId: string) => `signature-${signatureId}`;

export const signature = workflowRef<[SignatureWorkflowInput]>('signatureWorkflow', 'signature');
