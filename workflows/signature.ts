/**
 * The lifecycle of one signature request, `signature-<id>`: it waits for the signers'
 * signals, sends reminders on a timer while anyone still has to sign, and expires the
 * request at its deadline. The signer endpoints record each act in the store first
 * (with its audit entry and event) and then signal here; this workflow owns time:
 * reminders, expiry, and completion once every signer has signed.
 */
import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SignatureActivities } from '../activities/signatures';

export type SignerState = 'pending' | 'viewed' | 'signed' | 'declined';
export type RequestState = 'pending' | 'completed' | 'declined' | 'expired' | 'cancelled';

export interface SignatureWorkflowInput {
  signatureId: string;
  signerIds: string[];
  /** Epoch milliseconds of the deadline. */
  expiresAtMs: number;
  reminderIntervalMs: number;
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
export const statusQuery = defineQuery<SignatureStatus>('status');

const { sendSignatureReminders, completeSignatureRequest, expireSignatureRequest } = proxyActivities<SignatureActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20, maximumInterval: '1 minute' },
});

export async function signatureWorkflow(input: SignatureWorkflowInput): Promise<RequestState> {
  const signers = new Map<string, SignerState>(input.signerIds.map((id) => [id, 'pending']));
  let status: RequestState = 'pending';
  let remindersSent = 0;

  // Acts arriving after the request has ended change nothing.
  const act = (signerId: string, next: SignerState) => {
    const current = signers.get(signerId);
    if (status !== 'pending' || current === undefined || current === 'signed' || current === 'declined') return;
    if (next === 'viewed' && current !== 'pending') return;
    signers.set(signerId, next);
    if (next === 'declined') status = 'declined';
  };
  setHandler(viewedSignal, ({ signerId }) => act(signerId, 'viewed'));
  setHandler(signedSignal, ({ signerId }) => act(signerId, 'signed'));
  setHandler(declinedSignal, ({ signerId }) => act(signerId, 'declined'));
  setHandler(cancelSignal, () => {
    if (status === 'pending') status = 'cancelled';
  });
  setHandler(statusQuery, () => ({
    status,
    signers: [...signers].map(([id, s]) => ({ id, status: s })),
    expires_at_ms: input.expiresAtMs,
    reminders_sent: remindersSent,
  }));

  const allSigned = () => [...signers.values()].every((s) => s === 'signed');
  while (status === 'pending' && !allSigned()) {
    const untilExpiry = input.expiresAtMs - Date.now();
    if (untilExpiry <= 0) {
      status = 'expired';
      await expireSignatureRequest({ signatureId: input.signatureId });
      return status;
    }
    const wait = Math.min(input.reminderIntervalMs, untilExpiry);
    const changed = await condition(() => status !== 'pending' || allSigned(), wait);
    if (!changed && wait === input.reminderIntervalMs && Date.now() < input.expiresAtMs) {
      remindersSent++;
      const stored = await sendSignatureReminders({ signatureId: input.signatureId });
      // The signer endpoints store each act before signalling; an act whose signal did not
      // arrive (workflow engine briefly unreachable) is taken from the store here.
      for (const x of stored?.signers ?? []) if (x.status !== 'pending') act(x.id, x.status);
      if (stored && stored.status !== 'pending' && status === 'pending') status = stored.status;
    }
  }
  if (status === 'pending') {
    status = 'completed';
    await completeSignatureRequest({ signatureId: input.signatureId });
  }
  return status;
}
