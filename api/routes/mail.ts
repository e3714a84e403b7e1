/**
 * The organization's outgoing mail (`/settings/mail`, owners and admins): every message with
 * its delivery state, never its content (which may carry a reset, invitation or signing
 * link), and a manual retry for one that failed.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { listMail, mailListQuery } from '../../services/mail/list-mail';
import { retryMail } from '../../services/mail/queue';
import { mailView } from '../../models/outgoing-mail';
import { authorize, principalOf } from '../http/middleware/auth';
import { sendPage } from '../http/pages';
import '../operations/mail';

export function mailRouter(s: Engines): Router {
  const router = Router();
  const manage = authorize('settings:manage');

  router.get('/', manage, async (req, res) => {
    const q = mailListQuery.parse(req.query);
    sendPage(res, 'messages', q, await listMail(principalOf(req), q));
  });

  router.post('/:id/retry', manage, async (req, res) => {
    res.status(202).json(mailView(await retryMail(s, principalOf(req), req.params.id)));
  });

  return router;
}
