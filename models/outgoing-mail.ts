import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin } from './base';
import { defineList } from '../platform/lists/lists';

export const MAIL_KINDS = [
  'password_reset',
  'email_verification',
  'team_invite',
  'sso_link',
  'signature_request',
  'signature_reminder',
  'signature_declined',
  'signature_expired',
  'signature_completed',
  'renewal_due',
  'approval_request',
  'approval_reminder',
  'approval_escalation',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** queued → sending → sent, or failed (retryable by hand); a failed one goes back to queued on retry. */
export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * One message to one address, sent by the workflow `mail-<id>` (services/mail/queue.ts). The
 * rendered parts may carry a secret (a reset, invitation or signing link), so they are
 * kept only sealed (AES-256-GCM) and only until the message is sent: `content_sealed` is
 * removed with the change to `sent`. Subjects never carry secrets.
 */
const schema = new Schema({
  /** Null only for mail that belongs to no organization (none today: resets use the user's). */
  organization_id: { type: Schema.Types.ObjectId, default: null },
  kind: { type: String, enum: MAIL_KINDS, required: true },
  to: { type: String, required: true },
  subject: { type: String, required: true },
  /** encryptSecret(JSON of { text, html }); null once sent. */
  content_sealed: { type: String, default: null },
  /** What the message is about (ids only), e.g. { signature_id, signer_id }; never a secret. */
  ref: { type: Schema.Types.Mixed, default: {} },
  /** Makes queueing idempotent: a replayed event or retried activity finds the same message. */
  dedupe_key: { type: String, required: true, unique: true },
  status: { type: String, enum: MAIL_STATUSES, default: 'queued' },
  attempts: { type: Number, default: 0 },
  last_error: { type: String, default: null },
  /** The Message-ID header, `<id@sender domain>`: the same on every attempt, so receivers drop duplicates. */
  message_id: { type: String, required: true },
  /** The SMTP server's final reply (usually with its queue id). */
  smtp_response: { type: String, default: null },
  /** The workflow sending it; a manual retry starts `mail-<id>-retry-<n>`. */
  workflow_id: { type: String, default: null },
  retries: { type: Number, default: 0 },
  queued_at: { type: Date, required: true },
  sent_at: { type: Date, default: null },
  failed_at: { type: Date, default: null },
});
schema.plugin(basePlugin, { hidden: ['content_sealed', 'dedupe_key'] });
// The list (mailList): newest first, optionally by status.
schema.index({ organization_id: 1, queued_at: -1, _id: -1 });
schema.index({ organization_id: 1, status: 1, queued_at: -1, _id: -1 });
// The catch-up loop looks for queued messages whose workflow never started.
schema.index({ status: 1, workflow_id: 1, queued_at: 1 });

export type OutgoingMailDoc = InferSchemaType<typeof schema>;
export type OutgoingMailRecord = HydratedDocument<OutgoingMailDoc>;
export const OutgoingMail = model('OutgoingMail', schema, 'outgoing_mail');

export const mailList = defineList({
  name: 'mail',
  model: OutgoingMail,
  filters: ['status'],
  sort: { field: 'queued_at', order: -1 },
  row: mailView,
});

/** The operator's view (GET /settings/mail): never the content. */
export function mailView(m: OutgoingMailRecord) {
  return {
    id: m.id,
    kind: m.kind,
    to: m.to,
    subject: m.subject,
    status: m.status,
    attempts: m.attempts,
    last_error: m.last_error ?? null,
    queued_at: m.queued_at.toISOString(),
    sent_at: m.sent_at?.toISOString() ?? null,
  };
}
