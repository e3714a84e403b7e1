/** The OpenAPI description of the organization's outgoing mail (api/routes/mail.ts serves it). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { MAIL_KINDS, MAIL_STATUSES } from '../../models/outgoing-mail';
import { mailListQuery } from '../../services/mail/list-mail';
import { operation, pageOf, registry, timestamp } from '../http/openapi';

/** mailView (models/outgoing-mail.ts). */
const mailSchema = registry.register(
  'OutgoingMail',
  z.object({
    id: idSchema,
    kind: z.enum(MAIL_KINDS),
    to: z.string(),
    subject: z.string(),
    status: z
      .enum(MAIL_STATUSES)
      .meta({ description: 'queued (waiting for its first or next try), sending, sent (the SMTP server accepted it), failed' }),
    attempts: z.number().int().meta({ description: 'SMTP tries so far' }),
    last_error: z.string().nullable().meta({ description: 'The last refusal or connection error' }),
    queued_at: timestamp,
    sent_at: timestamp.nullable(),
  }),
);

const tag = 'Mail';
operation({
  path: '/settings/mail',
  method: 'get',
  tag,
  query: mailListQuery,
  summary: "List the organization's outgoing mail (newest first), by status",
  description:
    'Invitations, password resets and signature mail with their delivery state; never their content. Transient SMTP failures are retried for 24 hours with backoff; a 5xx refusal fails the message at once and records `mail.failed` in the activity feed.',
  responses: { 200: { description: 'A page of messages', schema: pageOf('messages', mailSchema) } },
});
operation({
  path: '/settings/mail/{id}/retry',
  method: 'post',
  tag,
  summary: 'Send a failed message again (same Message-ID, a new 24-hour retry window)',
  responses: { 202: { description: 'Queued again', schema: mailSchema }, 409: 'The message is not failed' },
});
