/**
 * Mail delivery adapted to Temporal (services/mail/send-mail.ts): a 5xx refusal is a
 * non-retryable `SmtpPermanent`, anything else an `SmtpTransient` for Temporal's backoff.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import { failMail, MailRefused, sendQueuedMail } from '../services/mail/send-mail';

export function createMailActivities(s: Engines) {
  return {
    async deliverMail({ mailId }: { mailId: string }): Promise<'sent' | 'skipped'> {
      try {
        return await sendQueuedMail(s, mailId);
      } catch (err) {
        if (!(err instanceof MailRefused)) throw err;
        throw err.permanent
          ? ApplicationFailure.nonRetryable(err.reason, 'SmtpPermanent')
          : ApplicationFailure.retryable(err.reason, 'SmtpTransient');
      }
    },
    failMail,
  };
}

export type MailActivities = ReturnType<typeof createMailActivities>;
