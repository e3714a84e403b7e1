/**
 * The approval page's form: Approve or Reject, with a comment, and a current MFA code when
 * the approver has MFA on. The CSRF token is bound to the browser and to the link (as on
 * the signing page, platform/security/csrf.ts) and is checked first; then the link, the form
 * and the code; then the decision is the same use case as `POST /approvals/:id/approve`
 * (./decide-approval.ts), as the approver, on the version the link is bound to.
 */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Config } from '../../platform/config';
import { isAppError, unauthorized } from '../../platform/errors';
import { sha256Hex } from '../../platform/security/crypto';
import { csrfToken, csrfValid } from '../../platform/security/csrf';
import { passSecondFactor } from '../identity/enroll-mfa';
import { decideApproval } from './decide-approval';
import { approverPrincipal, resolveApprovalLink } from './open-approval-link';

const comment = z
  .string()
  .trim()
  .max(2000, 'Use at most 2000 characters')
  .refine((v) => !v.includes('\0'), 'Remove the NUL character');

/** The form's fields (a comment is needed to reject: `approvalForm`). */
export const approvalFormFields = z.object({
  decision: z.enum(['approve', 'reject'], 'Choose Approve or Reject'),
  comment: comment.default(''),
  code: z.string().trim().max(32, 'Use at most 32 characters').default(''),
});

export const approvalForm = approvalFormFields.refine((f) => f.decision === 'approve' || f.comment !== '', {
  path: ['comment'],
  message: 'Say briefly why you reject',
});

export const MFA_ENROL =
  'Your organization requires MFA, and you have not set it up yet: sign in to the app to set it up, then decide here or there.';

/** The CSRF scope of a link: its request and token, hashed. */
const scopeOf = (approvalId: string, token: string) => sha256Hex(`approval-link:${approvalId}/${token}`);

export const approvalFormToken = (config: Pick<Config, 'ENCRYPTION_KEY'>, browserId: string, approvalId: string, token: string) =>
  csrfToken(config, browserId, scopeOf(approvalId, token));

export interface ApprovalFormPost {
  approvalId: string;
  token: string;
  browserId: string | null;
  body: Record<string, unknown>;
}

/**
 * Runs an MFA code check (which throws a 401 on a wrong code) under the per-account limit of
 * wrong codes; the route passes the service's limiter (api/http/middleware/rate-limit.ts).
 */
export type CodeAttempt = <T>(userId: string, attempt: () => Promise<T>) => Promise<T>;

/**
 * Done (the page then shows the new state), forbidden (CSRF), the link unknown or expired,
 * the form again with what to correct (by field), or the decision refused with why.
 */
export type ApprovalFormOutcome =
  | { kind: 'done' | 'forbidden' | 'unknown' | 'expired' }
  | { kind: 'invalid'; typed: { comment: string }; errors: Record<string, string> }
  | { kind: 'refused'; status: number; code: string; detail: string };

export async function submitApprovalForm(s: Engines, post: ApprovalFormPost, codeAttempt: CodeAttempt): Promise<ApprovalFormOutcome> {
  if (!csrfValid(s.config, post.browserId, scopeOf(post.approvalId, post.token), post.body.csrf)) return { kind: 'forbidden' };
  const link = await resolveApprovalLink(s, post.approvalId, post.token);
  if (link === 'expired') return { kind: 'expired' };
  if (!link) return { kind: 'unknown' };
  const typed = { comment: typeof post.body.comment === 'string' ? post.body.comment.slice(0, 2000) : '' };
  const parsed = approvalForm.safeParse(post.body);
  if (!parsed.success)
    return {
      kind: 'invalid',
      typed,
      errors: Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? 'decision'), i.message])),
    };
  const form = parsed.data;
  const { approval, user } = link;
  if (link.mfa === 'enrol') return { kind: 'refused', status: 403, code: 'forbidden', detail: MFA_ENROL };
  if (link.mfa === 'code') {
    if (!form.code) return { kind: 'invalid', typed, errors: { code: 'Enter the current code from your authenticator app' } };
    try {
      await codeAttempt(user.id, async () => {
        if (!(await passSecondFactor(s, user, form.code))) throw unauthorized('Wrong code');
      });
    } catch (err) {
      if (!isAppError(err, 'unauthenticated')) throw err;
      return { kind: 'invalid', typed, errors: { code: 'That code is not right or was already used; enter the current one' } };
    }
  }
  try {
    await decideApproval(s, approverPrincipal(user), approval.id, form.decision === 'approve' ? 'approved' : 'rejected', {
      ...(form.comment ? { comment: form.comment } : {}),
      version_sha256: approval.version_sha256,
    });
  } catch (err) {
    // The use case's refusals (not this approver's step, closed, superseded meanwhile, ...) as the page says them.
    if (isAppError(err) && err.status < 500) return { kind: 'refused', status: err.status, code: err.code, detail: err.detail };
    throw err;
  }
  return { kind: 'done' };
}
