/**
 * The lifecycle of one signature request, `signature-<id>`: it waits for the signers'
 * signals, sends reminders on a timer while anyone still has to sign (at most `maxReminders`
 * rounds; later ticks only read the store), and expires the
 * request at its deadline. The signer endpoints record each act in the store first
 * (with its audit entry and event) and then signal here; this workflow owns time:
 * reminders, expiry, and completion once every signer has signed, then the sealed PDF.
 */
import { ApplicationFailure, ActivityFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SignatureActivities } from '../activities/signatures';
import {
  viewedSignal,
  signedSignal,
  declinedSignal,
  cancelSignal,
  retrySealSignal,
  statusQuery,
  type SignerState,
  type RequestState,
  type SignatureWorkflowInput,
} from './signature.shared';

const { sendSignatureReminders, readSignatureState, completeSignatureRequest, expireSignatureRequest } =
  proxyActivities<SignatureActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 20, maximumInterval: '1 minute' },
  });

// Sealing retries for about two minutes, then shows its error on the request for an operator.
const pdf = proxyActivities<SignatureActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 6, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const failureText = (err: unknown) => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
};

/**
 * The signed PDF: render, then seal. The request is already completed; a failure leaves it
 * completed with `sealing_error` set, and the workflow waits for an operator's retry.
 */
async function sealSignedDocument(signatureId: string, retried: () => boolean, rearm: () => void) {
  for (;;) {
    try {
      await pdf.renderSignedPdf({ signatureId });
      await pdf.sealSignedPdf({ signatureId });
      return;
    } catch (err) {
      rearm();
      await pdf.recordSealingError({ signatureId, error: failureText(err) });
      await condition(retried);
    }
  }
}

export async function signatureWorkflow(input: SignatureWorkflowInput): Promise<RequestState> {
  const signers = new Map<string, SignerState>(input.signerIds.map((id) => [id, 'pending']));
  let status: RequestState = 'pending';
  let remindersSent = 0;
  let sealRetry = false;
  setHandler(retrySealSignal, () => {
    sealRetry = true;
  });

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
      // Once the rounds are spent, the timer still reads the store but mails nobody.
      const remind = remindersSent < (input.maxReminders ?? Infinity);
      if (remind) remindersSent++;
      const stored = remind
        ? await sendSignatureReminders({ signatureId: input.signatureId })
        : await readSignatureState({ signatureId: input.signatureId });
      // The signer endpoints store each act before signalling; an act whose signal did not
      // arrive (workflow engine briefly unreachable) is taken from the store here.
      for (const x of stored?.signers ?? []) if (x.status !== 'pending') act(x.id, x.status);
      if (stored && stored.status !== 'pending' && status === 'pending') status = stored.status;
    }
  }
  if (status === 'pending') {
    status = 'completed';
    await completeSignatureRequest({ signatureId: input.signatureId });
    await sealSignedDocument(
      input.signatureId,
      () => sealRetry,
      () => {
        sealRetry = false;
      },
    );
  }
  return status;
}
