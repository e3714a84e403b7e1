/**
 * Queueing mail: the one way a message leaves the service. `queueMail` writes the record
 * (its rendered parts sealed) and starts its workflow `mail-<id>` at once in the background;
 * the relay's catch-up loop (platform/outbox/relay.ts) starts any queued message whose workflow did not
 * start (Temporal down, process gone), so the caller never waits on the workflow engine or
 * the SMTP server, and nothing queued is lost.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { decryptSecret, encryptSecret } from '../../platform/security/crypto';
import { startWorkflow } from '../../platform/temporal/client';
import { mailDelivery, mailWorkflowId } from '../../workflows/mail-delivery.shared';
import { OutgoingMail, type MailKind, type OutgoingMailRecord } from '../../models/outgoing-mail';
import type { RenderedMail } from './messages';
import { isDuplicateKey } from '../../platform/mongo';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { mailErrors } from './errors';

export interface NewMail {
  organizationId: string | Types.ObjectId;
  kind: MailKind;
  to: string;
  /** The same key finds the same message: queueing again (a replayed event, a retried activity) sends nothing twice. */
  dedupeKey: string;
  ref?: Record<string, string>;
  message: RenderedMail;
}

/** The sealed parts, as the send activity reads them. */
export type MailContent = Omit<RenderedMail, 'subject'>;

export async function queueMail(s: Engines, m: NewMail): Promise<OutgoingMailRecord> {
  const id = new Types.ObjectId();
  const domain = s.config.mailFromAddress.split('@').pop();
  const { subject, ...content } = m.message;
  let mail: OutgoingMailRecord;
  try {
    mail = await OutgoingMail.create({
      _id: id,
      organization_id: m.organizationId,
      kind: m.kind,
      to: m.to,
      subject,
      content_sealed: encryptSecret(s.config, JSON.stringify(content satisfies MailContent)),
      ref: m.ref ?? {},
      dedupe_key: m.dedupeKey,
      message_id: `<${id.toHexString()}@${domain}>`,
      queued_at: new Date(),
    });
  } catch (err) {
    if (isDuplicateKey(err)) return OutgoingMail.findOne({ dedupe_key: m.dedupeKey }).orFail();
    throw err;
  }
  startMailDelivery(s, mail).catch((err: unknown) =>
    s.logger.warn({ err: (err as Error).message, mailId: mail.id }, 'mail workflow did not start; the relay loop will start it'),
  );
  return mail;
}

export const openMailContent = (s: Engines, sealed: string) => JSON.parse(decryptSecret(s.config, sealed)) as MailContent;

/** Starts the message's current workflow unless it exists (ids name the attempt window, so this is idempotent). */
export async function startMailDelivery(s: Engines, mail: OutgoingMailRecord): Promise<void> {
  const workflowId = mailWorkflowId(mail);
  await startWorkflow(s, mailDelivery, {
    workflowId,
    args: [{ mailId: mail.id }],
    organizationId: String(mail.organization_id),
    recordId: mail.id,
  });
  await OutgoingMail.updateOne({ _id: mail._id, retries: mail.retries, workflow_id: null }, { $set: { workflow_id: workflowId } });
}

/**
 * Queued messages older than `olderThanMs` whose workflow has not started, started now
 * (the relay loop calls this). Stops at the first failure and throws it.
 */
export async function startPendingMail(s: Engines, { olderThanMs = 1500, limit = 100 } = {}): Promise<number> {
  const due = await OutgoingMail.find({
    status: 'queued',
    workflow_id: null,
    queued_at: trusted({ $lte: new Date(Date.now() - olderThanMs) }),
  })
    .sort({ queued_at: 1 })
    .limit(limit);
  for (const mail of due) await startMailDelivery(s, mail);
  return due.length;
}

/**
 * Sends a failed message of the caller's organization again in a fresh attempt window
 * (`mail-<id>-retry-<n>`), with the same Message-ID.
 */
export async function retryMail(s: Engines, p: Principal, id: unknown): Promise<OutgoingMailRecord> {
  const found = await findOwned(OutgoingMail, p, id, 'Message', { projection: { status: 1 } });
  const mail = await OutgoingMail.findOneAndUpdate(
    { _id: found._id, organization_id: new Types.ObjectId(p.organizationId), status: 'failed' },
    { $set: { status: 'queued', workflow_id: null, failed_at: null }, $inc: { retries: 1 } },
    { returnDocument: 'after' },
  );
  if (!mail) throw mailErrors.mail_not_retryable(`Only a failed message can be retried; this one is ${found.status}`);
  startMailDelivery(s, mail).catch((err: unknown) =>
    s.logger.warn({ err: (err as Error).message, mailId: mail.id }, 'mail retry did not start; the relay loop will start it'),
  );
  return mail;
}
