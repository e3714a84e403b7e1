/**
 * Delivery of one message (`mail-<id>`): one activity that sends it over SMTP, retried by
 * Temporal on the schedule below while the failure is transient, then `failed`.
 *
 * Backoff (MAIL_RETRY): tries at 0 s, +10 s, +20 s, +40 s, ... doubling up to one every
 * 10 minutes, for 24 hours (MAIL_RETRY_WINDOW); an SMTP server that is down or answers 4xx
 * is retried that long. A 5xx answer is non-retryable and fails the message at once.
 * Each try is one attempt window of at most a minute, and the transport's own timeouts end
 * a try before its window does, so a message is handed to SMTP at most once per window.
 * A worker killed mid-send leaves the attempt to time out and be tried again, with the same
 * Message-ID, so a receiver drops the copy if the first one did arrive.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { MailActivities } from '../activities/mail';
import type { MailDeliveryInput } from './mail-delivery.shared';

export const MAIL_RETRY = { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' } as const;
export const MAIL_RETRY_WINDOW = '24 hours';

const { deliverMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: MAIL_RETRY_WINDOW,
  retry: { ...MAIL_RETRY, nonRetryableErrorTypes: ['SmtpPermanent'] },
});
const { failMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 20, maximumInterval: '1 minute' },
});

export async function mailDeliveryWorkflow({ mailId }: MailDeliveryInput): Promise<'sent' | 'failed' | 'skipped'> {
  try {
    return await deliverMail({ mailId });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // A permanent refusal carries the server's reply. Anything else ended the window (Temporal
    // answers with the last try's failure, or a timeout); the record keeps the last error.
    const permanent = err.cause instanceof ApplicationFailure && err.cause.type === 'SmtpPermanent';
    await failMail({ mailId, reason: permanent ? err.cause.message : null, gaveUp: !permanent });
    return 'failed';
  }
}
