/** The organization's outgoing mail, a page at a time (newest first), by status. */
import type { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { choice } from '../../platform/input';
import { storePage } from '../../platform/lists/lists';
import { pageQuery } from '../../platform/lists/pagination';
import { MAIL_STATUSES, mailList } from '../../models/outgoing-mail';

export const mailListQuery = pageQuery.extend({ status: choice(MAIL_STATUSES).optional() });

export function listMail(p: Pick<Principal, 'organizationId'>, q: z.infer<typeof mailListQuery>) {
  return storePage(mailList, p.organizationId, { equal: q.status ? { status: q.status } : {} }, q);
}
