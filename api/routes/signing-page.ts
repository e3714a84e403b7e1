/**
 * The signer's page, `/sign/<token>`, outside /api/v1: the link mail sends. Server-rendered
 * HTML without script (api/views/signing-page.ts) over the same acts as the JSON endpoints:
 * what a link shows in services/signatures/open-signing-link.ts, its forms (CSRF token bound
 * to the browser and the link) in submit-signing-form.ts. A post answers 303 back to the
 * page, which then shows the link's state. The token is a path segment the request log
 * redacts, and a `Location` too.
 */
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { Engines } from '../../platform/engines';
import { browserIdOf, issueBrowserId } from '../../platform/security/csrf';
import { openSigningLink } from '../../services/signatures/open-signing-link';
import {
  declineOnPage,
  signingFormToken,
  signOnPage,
  type SigningFormOutcome,
  type SigningFormPost,
} from '../../services/signatures/submit-signing-form';
import { readCopyToken } from '../../services/signatures/signed-copy-link';
import { signingPdf } from '../../services/signatures/signed-pdf-store';
import { SIGNING_PAGE_CSS } from '../views/signing-styles';
import {
  STYLESHEET_PATH,
  messagePage,
  requestSummary,
  signPage,
  signingPages,
  statePage,
  type SignFormValues,
} from '../views/signing-page';
import { rateLimits } from '../http/middleware/rate-limit';
import { isPrefetch, signerClient } from '../http/middleware/signer-client';
import { ERROR_CODE_HEADER, toAppError } from '../http/errors';
import { signatureErrors } from '../../services/signatures/errors';
import '../operations/signing-page';

/** No script, no third-party asset, no framing; forms post only here. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const pagePath = (token: string) => `/sign/${encodeURIComponent(token)}`;

function html(res: Response, status: number, body: string) {
  res.status(status).type('html').send(body);
}

export function signingPageRouter(s: Engines): Router {
  const router = Router();
  const limits = rateLimits(s);
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });
  const token = (req: Request) => String(req.params.token);

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.type('text/css').set('Cache-Control', 'public, max-age=3600').send(SIGNING_PAGE_CSS);
  });

  router.use('/sign', limits.default, (_req, res, next) => {
    res.set({ 'Content-Security-Policy': CSP, 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' });
    next();
  });

  /** The link's page; a refused post shows the form again with `status` and what to correct. */
  async function show(req: Request, res: Response, status = 200, refused: Pick<SignFormValues, 'typed' | 'errors'> = {}) {
    const t = token(req);
    const shown = await openSigningLink(s, t, signerClient(req), !isPrefetch(req));
    const pdfUrl = `${pagePath(t)}/document.pdf`;
    switch (shown.kind) {
      case 'expired-download':
        return html(
          res,
          410,
          messagePage('This link has expired', 'This download link has expired. Ask the sender for a copy of the signed document.'),
        );
      case 'unknown':
        return html(
          res,
          404,
          messagePage(
            'Link not found',
            shown.download
              ? 'This download link is not known.'
              : 'This signing link is not known. Check that you opened the whole link from your email.',
          ),
        );
      case 'state':
        return html(res, 200, statePage(requestSummary(shown.sig), shown.state, pdfUrl));
      case 'form':
        return html(
          res,
          status,
          signPage({
            token: t,
            csrf: signingFormToken(s.config, issueBrowserId(s.config, req, res, '/sign'), t),
            request: requestSummary(shown.sig),
            signerName: shown.signer.name,
            pages: signingPages(shown.sig),
            expiresAt: shown.sig.expires_at,
            pdfUrl,
            ...refused,
          }),
        );
    }
  }

  router.get('/sign/:token', async (req, res) => {
    await show(req, res);
  });

  router.get('/sign/:token/document.pdf', async (req, res) => {
    const pdf = await signingPdf(s.config, token(req), readCopyToken(s.config, token(req)));
    if (pdf === 'expired')
      throw signatureErrors.signed_copy_expired(
        `This link downloaded the signed document for ${s.config.SIGNED_COPY_DAYS} days after everyone signed, and no longer does. Ask the sender for a copy.`,
      );
    if (pdf === 'gone') return html(res, 410, messagePage('No document here', 'This link can no longer download the document.'));
    if (!pdf) return html(res, 404, messagePage('Link not found', 'This link is not known.'));
    res.type('application/pdf').set('Content-Disposition', `attachment; filename="${pdf.filename}"`).send(pdf.bytes);
  });

  /** A post from this page: back to the page when done, the form again when refused. */
  const post = (submit: (s: Engines, post: SigningFormPost) => Promise<SigningFormOutcome>) => async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const outcome = await submit(s, { token: token(req), browserId: browserIdOf(req), client: signerClient(req), body });
    if (outcome === 'forbidden')
      return html(
        res,
        403,
        messagePage(
          'Please try again',
          'This form has expired or did not come from this page. Go back, reload the page and submit it again.',
        ),
      );
    if (outcome !== 'done') return show(req, res, 400, outcome);
    res.redirect(303, pagePath(token(req)));
  };
  router.post('/sign/:token', forms, post(signOnPage));
  router.post('/sign/:token/decline', forms, post(declineOnPage));

  // Refusals (rate limit, bad form encoding, an ended download) as a page, or as JSON `{detail}`
  // to a client that asks for JSON; anything else to the app's handler.
  const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
    const known = toAppError(err);
    if (!known || known.status >= 500 || !req.path.startsWith('/sign') || req.accepts(['html', 'json']) === 'json') return next(err);
    res.set(known.headers).set(ERROR_CODE_HEADER, known.code);
    html(res, known.status, messagePage('Request refused', known.detail));
  };
  router.use(pageErrors);
  return router;
}
