/**
 * The organization's outgoing mail (`/settings/mail`, owners and admins): every message with
 * its delivery state, never its content (which may carry a reset, invitation or signing
 * link), and a manual retry for one that failed.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { pageQuery } from '../../platform/lists/pagination';
import { storePage } from '../../platform/lists/lists';
import { retryMail } from '../../services/mail/queue';
import { MAIL_KINDS, MAIL_STATUSES, mailList, mailView } from '../../models/outgoing-mail';
import { authorize, principalOf } from '../http/middleware/auth';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { choice, idSchema } from '../../platform/input';

const listQuery = pageQuery.extend({ status: choice(MAIL_STATUSES).optional() });

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
  query: listQuery,
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

export function mailRouter(s: Engines): Router {
  const router = Router();
  const manage = authorize('settings:manage');

  router.get('/', manage, async (req, res) => {
    const q = listQuery.parse(req.query);
    const { items, total } = await storePage(mailList, principalOf(req).organizationId, { equal: q.status ? { status: q.status } : {} }, q);
    res.json({ messages: items, total, page: q.page, page_size: q.page_size });
  });

  router.post('/:id/retry', manage, async (req, res) => {
    res.status(202).json(mailView(await retryMail(s, principalOf(req), req.params.id)));
  });

  return router;
}
