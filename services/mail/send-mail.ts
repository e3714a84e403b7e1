/**
 * Sending one queued message over SMTP (workflows/mail-delivery.ts runs it through
 * activities/mail.ts). A try claims the message (`sending`), sends it with its fixed
 * Message-ID, and on acceptance marks it `sent` and drops its sealed content in the same
 * write, so a sent record keeps no token. A refusal is recorded as `last_error` and thrown.
 */
import { trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { recordEvent } from '../../platform/outbox/record-event';
import { classifySmtpError } from '../../platform/mail/transport';
import { openMailContent } from './queue';
import { Event } from '../../models/event';
import { OutgoingMail } from '../../models/outgoing-mail';

// trusted: the filter is built here, not from input (sanitizeFilter is on).
const unsent = () => trusted({ $in: ['queued', 'sending'] }) as unknown as 'queued';

/** SMTP did not take the message: `permanent` for a 5xx refusal, else worth another try later. */
export class MailRefused extends Error {
  constructor(
    readonly reason: string,
    readonly permanent: boolean,
  ) {
    super(reason);
  }
}

/** One try at sending a queued message; throws MailRefused when SMTP does not take it. */
export async function sendQueuedMail(s: Engines, mailId: string): Promise<'sent' | 'skipped'> {
  const mail = await OutgoingMail.findOneAndUpdate(
    { _id: mailId, status: unsent() },
    { $set: { status: 'sending' }, $inc: { attempts: 1 } },
    { returnDocument: 'after' },
  );
  // Already sent by an earlier try whose answer was lost, or failed and closed meanwhile.
  if (!mail) return (await OutgoingMail.exists({ _id: mailId, status: 'sent' })) ? 'sent' : 'skipped';
  if (!mail.content_sealed) throw new MailRefused('the message has no content to send', true);
  const content = openMailContent(s, mail.content_sealed);
  try {
    const info = await s.mailer.sendMail({
      to: mail.to,
      subject: mail.subject,
      text: content.text,
      html: content.html,
      attachments: content.attachments,
      messageId: mail.message_id,
    });
    await OutgoingMail.updateOne(
      { _id: mail._id },
      {
        $set: {
          status: 'sent',
          sent_at: new Date(),
          smtp_response: String(info.response ?? ''),
          last_error: null,
          content_sealed: null,
        },
      },
    );
    return 'sent';
  } catch (err) {
    const refusal = classifySmtpError(err);
    await OutgoingMail.updateOne(
      { _id: mail._id, status: 'sending' },
      { $set: { last_error: refusal.reason, ...(refusal.permanent ? {} : { status: 'queued' }) } },
    );
    s.logger.warn({ mailId, kind: mail.kind, permanent: refusal.permanent, reason: refusal.reason }, 'SMTP did not take a message');
    throw new MailRefused(refusal.reason, refusal.permanent);
  }
}

/** Marks the message failed and puts it in the activity feed, once (a retried call finds the event). */
export async function failMail({ mailId, reason, gaveUp }: { mailId: string; reason: string | null; gaveUp: boolean }): Promise<void> {
  const current = await OutgoingMail.findById(mailId);
  if (!current) return;
  const lastError = reason ?? current.last_error ?? 'not sent';
  const error = gaveUp ? `gave up after trying for 24 hours: ${lastError}` : lastError;
  const mail =
    (await OutgoingMail.findOneAndUpdate(
      { _id: mailId, status: unsent() },
      { $set: { status: 'failed', failed_at: new Date(), last_error: error } },
      { returnDocument: 'after' },
    )) ?? (current.status === 'failed' ? current : null);
  if (!mail?.failed_at) return;
  const reported = await Event.exists({
    resource_type: 'mail',
    resource_id: mail.id,
    type: 'mail.failed',
    occurred_at: trusted({ $gte: mail.failed_at }),
  });
  if (reported) return;
  await recordEvent({
    organizationId: String(mail.organization_id),
    type: 'mail.failed',
    data: { id: mail.id, kind: mail.kind, to: mail.to, subject: mail.subject, attempts: mail.attempts, error: mail.last_error },
    actor: { type: 'system', id: null, name: 'mail delivery' },
    resource: { type: 'mail', id: mail.id },
    summary: `Mail "${mail.subject}" to ${mail.to} was not delivered: ${mail.last_error ?? 'unknown error'}`,
  });
}
