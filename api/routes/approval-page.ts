/**
 * The approver's page, `/approvals/<id>/<token>`, outside /api/v1: the personal link in
 * approval mail. Server-rendered HTML without script (api/views/approval-page.ts), built like
 * the signing page: what the link shows in services/approvals/open-approval-link.ts, its form
 * (CSRF token bound to the browser and the link, an MFA code for approvers who have MFA on)
 * in submit-approval-form.ts, which decides through the same use case as
 * `POST /approvals/:id/approve`. A GET only reads; a post answers 303 back to the page. The
 * token is a path segment the request log redacts, and a `Location` too.
 */
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { Engines } from '../../platform/engines';
import { browserIdOf, issueBrowserId } from '../../platform/security/csrf';
import { openApprovalLink } from '../../services/approvals/open-approval-link';
import { approvalFormToken, submitApprovalForm } from '../../services/approvals/submit-approval-form';
import { messagePage } from '../views/signing-page';
import { approvalPage, approvalPagePath, approvalStatePage, type ApprovalFormValues } from '../views/approval-page';
import { rateLimits } from '../http/middleware/rate-limit';
import { ERROR_CODE_HEADER, toAppError } from '../http/errors';
import '../operations/approval-page';

/** No script, no third-party asset, no framing; forms post only here. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const UNKNOWN = messagePage('Link not found', 'This approval link is not known. Check that you opened the whole link from your email.');
const EXPIRED = messagePage(
  'This link has expired',
  'This approval link has expired. The next reminder brings a new one; or decide in the app.',
);

function html(res: Response, status: number, body: string) {
  res.status(status).type('html').send(body);
}

export function approvalPageRouter(s: Engines): Router {
  const router = Router();
  const limits = rateLimits(s);
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });
  const link = (req: Request) => ({ approvalId: String(req.params.id), token: String(req.params.token) });

  router.use('/approvals', limits.default, (_req, res, next) => {
    res.set({ 'Content-Security-Policy': CSP, 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' });
    next();
  });

  /** The link's page; a refused post shows the form again with `status` and what to correct. */
  async function show(req: Request, res: Response, status = 200, refused: Pick<ApprovalFormValues, 'typed' | 'errors'> = {}) {
    const { approvalId, token } = link(req);
    const shown = await openApprovalLink(s, approvalId, token);
    switch (shown.kind) {
      case 'unknown':
        return html(res, 404, UNKNOWN);
      case 'expired':
        return html(res, 410, EXPIRED);
      case 'state':
        return html(
          res,
          shown.state.kind === 'superseded' ? 410 : 200,
          approvalStatePage(shown.approval.contract_title, shown.approval.version_number, shown.state),
        );
      case 'form':
        return html(
          res,
          status,
          approvalPage({
            path: approvalPagePath(approvalId, token),
            csrf: approvalFormToken(s.config, issueBrowserId(s.config, req, res, '/approvals'), approvalId, token),
            review: shown.review,
            ...refused,
          }),
        );
    }
  }

  router.get('/approvals/:id/:token', async (req, res) => {
    await show(req, res);
  });

  router.post('/approvals/:id/:token', forms, async (req, res) => {
    const { approvalId, token } = link(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const outcome = await submitApprovalForm(s, { approvalId, token, browserId: browserIdOf(req), body }, limits.userMfaAttempt);
    switch (outcome.kind) {
      case 'forbidden':
        return html(
          res,
          403,
          messagePage(
            'Please try again',
            'This form has expired or did not come from this page. Go back, reload the page and submit it again.',
          ),
        );
      case 'unknown':
        return html(res, 404, UNKNOWN);
      case 'expired':
        return html(res, 410, EXPIRED);
      case 'invalid':
        return show(req, res, 400, { typed: outcome.typed, errors: outcome.errors });
      case 'refused':
        res.set(ERROR_CODE_HEADER, outcome.code);
        return html(res, outcome.status, messagePage('Your decision was not recorded', outcome.detail));
      case 'done':
        return res.redirect(303, approvalPagePath(approvalId, token));
    }
  });

  // Refusals (rate limit, bad form encoding) as a page, not JSON; anything else to the app's handler.
  const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
    const known = toAppError(err);
    if (!known || known.status >= 500 || !req.path.startsWith('/approvals')) return next(err);
    res.set(known.headers).set(ERROR_CODE_HEADER, known.code);
    html(res, known.status, messagePage('Request refused', known.detail));
  };
  router.use(pageErrors);
  return router;
}
