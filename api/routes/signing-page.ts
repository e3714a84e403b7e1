/**
 * The signer's page, `/sign/<token>`, outside /api/v1: the link mail sends. Server-rendered
 * HTML without script (api/views/signing-page.ts) over the same acts as the JSON endpoints
 * (services/signatures/record-signer-act.ts). Forms carry a CSRF token bound to the browser
 * and the link; a post answers 303 back to the page, which then shows the link's state.
 * The token is a path segment the request log redacts, and a `Location` too.
 */
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { sha256Hex } from '../../platform/security/crypto';
import { csrfValid, issueCsrfToken } from '../../platform/security/csrf';
import {
  declineAsSigner,
  findByToken,
  isExpired,
  signAsSigner,
  viewAsSigner,
  yourTurn,
  type Signer,
} from '../../services/signatures/record-signer-act';
import { readCopyToken } from '../../services/signatures/signed-copy-link';
import { hasSealedPdf, signingPdf } from '../../services/signatures/signed-pdf-store';
import { Signature } from '../../models/signature';
import type { SignatureRecord } from '../../models/signature';
import { SIGNING_PAGE_CSS } from '../views/signing-styles';
import { STYLESHEET_PATH, messagePage, signPage, statePage, type LinkState, type RequestSummary } from '../views/signing-page';
import { rateLimits } from '../http/middleware/rate-limit';
import { signerClient } from '../http/middleware/signer-client';
import { ERROR_CODE_HEADER, toAppError } from '../http/errors';
import { operation } from '../http/openapi';

/** No script, no third-party asset, no framing; forms post only here. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const signForm = z.object({
  // An unticked box sends nothing.
  consent: z.preprocess((v) => v ?? '', z.literal('yes', 'Tick the box to agree to sign electronically')),
  signature_text: z
    .string()
    .trim()
    .min(1, 'Type your full name to sign')
    .max(200, 'Use at most 200 characters')
    .refine((v) => !v.includes('\0'), 'Remove the NUL character'),
});
const declineForm = z.object({
  reason: z
    .string()
    .trim()
    .min(1, 'Say briefly why you decline')
    .max(2000, 'Use at most 2000 characters')
    .refine((v) => !v.includes('\0'), 'Remove the NUL character'),
});

const tag = 'Signing page';
const page = (description: string) => ({ description, schema: z.string(), contentType: 'text/html' });
const posted = {
  303: 'Back to the page, which shows the new state',
  400: page('The form again, with what to correct'),
  403: page('The CSRF token is missing or does not match this browser and link'),
};
const root = { tag, public: true, root: true } as const;
/** The form as the parser below reads it: at most 10 fields (parameterLimit), each one value; more is 413. */
const formOf = (schema: z.ZodObject) => schema.extend({ csrf: z.string() }).catchall(z.string()).meta({ maxProperties: 10 });
operation({
  ...root,
  path: STYLESHEET_PATH,
  method: 'get',
  summary: "The signing page's stylesheet",
  responses: { 200: { description: 'CSS', schema: z.string(), contentType: 'text/css' } },
});
operation({
  ...root,
  path: '/sign/{token}',
  method: 'get',
  summary: "The signer's page (HTML): the document, consent, Sign and Decline, or the link's state",
  description:
    "The link in signing mail (`signing_url`). Marks the signer as having viewed the document, like the JSON endpoint. A copy link from the completion mail shows the sealed PDF's download.",
  responses: { 200: page('The page'), 404: page('Unknown link'), 410: page('An expired copy link') },
});
operation({
  ...root,
  path: '/sign/{token}/document.pdf',
  method: 'get',
  summary: 'The document as PDF: to sign, or sealed once everyone has signed',
  responses: {
    200: { description: 'The PDF', schema: z.string(), contentType: 'application/pdf' },
    410: page('The link can no longer download it'),
  },
});
operation({
  ...root,
  path: '/sign/{token}',
  method: 'post',
  summary: 'Sign from the page (form: csrf, consent=yes, signature_text)',
  form: formOf(signForm),
  responses: posted,
});
operation({
  ...root,
  path: '/sign/{token}/decline',
  method: 'post',
  summary: 'Decline from the page (form: csrf, reason)',
  form: formOf(declineForm),
  responses: posted,
});

const summaryOf = (sig: SignatureRecord): RequestSummary => ({
  requester: sig.requested_by_name ?? 'Your counterparty',
  title: sig.contract_title,
  message: sig.message ?? null,
});
const pagePath = (token: string) => `/sign/${encodeURIComponent(token)}`;

function html(res: Response, status: number, body: string) {
  res.status(status).type('html').send(body);
}

/** What the link shows when it cannot act: null while the signer may still sign. */
function linkState(sig: SignatureRecord, signer: Signer, token: string, sealed: boolean): LinkState | null {
  if (signer.status === 'signed')
    return {
      kind: 'signed',
      at: signer.signed_at!,
      completed: sig.status === 'completed',
      pdfUrl: sealed ? `${pagePath(token)}/document.pdf` : null,
    };
  if (signer.status === 'declined')
    return { kind: 'declined', at: signer.declined_at ?? null, reason: signer.decline_reason ?? null, byYou: true };
  if (sig.status === 'declined') return { kind: 'declined', at: null, reason: null, byYou: false };
  if (sig.status === 'cancelled') return { kind: 'cancelled' };
  if (isExpired(sig)) return { kind: 'expired', at: sig.expires_at };
  if (!yourTurn(sig, signer))
    return { kind: 'waiting', before: sig.signers.filter((x) => x.order < signer.order && x.status !== 'signed').length };
  return null;
}

export function signingPageRouter(s: Services): Router {
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

  async function showForm(
    req: Request,
    res: Response,
    status: number,
    extra: Pick<Parameters<typeof signPage>[0], 'typed' | 'errors'> = {},
  ) {
    const t = token(req);
    const found = await findByToken(t);
    if (!found)
      return html(
        res,
        404,
        messagePage('Link not found', 'This signing link is not known. Check that you opened the whole link from your email.'),
      );
    const { sig, signer } = found;
    const state = linkState(sig, signer, t, await hasSealedPdf(sig.id));
    if (state) return html(res, 200, statePage(summaryOf(sig), state));
    const viewed = await viewAsSigner(s, t, signerClient(req));
    const csrf = issueCsrfToken(s.config, req, res, sha256Hex(t), '/sign');
    html(
      res,
      status,
      signPage({
        token: t,
        csrf,
        request: summaryOf(viewed.sig),
        signerName: signer.name,
        document: viewed.sig.document,
        expiresAt: viewed.sig.expires_at,
        pdfUrl: `${pagePath(t)}/document.pdf`,
        ...extra,
      }),
    );
  }

  async function showCopy(res: Response, copy: Exclude<ReturnType<typeof readCopyToken>, 'expired' | null>, t: string) {
    const sig = await Signature.findOne({ _id: copy.signatureId, 'signers._id': copy.signerId });
    if (!sig) return html(res, 404, messagePage('Link not found', 'This download link is not known.'));
    const sealed = await hasSealedPdf(sig.id);
    html(res, 200, statePage(summaryOf(sig), { kind: 'copy', pdfUrl: sealed ? `${pagePath(t)}/document.pdf` : null, until: copy.until }));
  }

  router.get('/sign/:token', async (req, res) => {
    const copy = readCopyToken(s.config, token(req));
    if (copy === 'expired')
      return html(
        res,
        410,
        messagePage('This link has expired', 'This download link has expired. Ask the sender for a copy of the signed document.'),
      );
    if (copy) return showCopy(res, copy, token(req));
    await showForm(req, res, 200);
  });

  router.get('/sign/:token/document.pdf', async (req, res) => {
    const pdf = await signingPdf(token(req), readCopyToken(s.config, token(req)));
    if (pdf === 'gone') return html(res, 410, messagePage('No document here', 'This link can no longer download the document.'));
    if (!pdf) return html(res, 404, messagePage('Link not found', 'This link is not known.'));
    res.type('application/pdf').set('Content-Disposition', `attachment; filename="${pdf.filename}"`).send(pdf.bytes);
  });

  /** A post from this page: the CSRF token first, then the form; refused forms show again with their errors. */
  function post<T>(
    schema: z.ZodType<T>,
    run: (req: Request, body: T) => Promise<unknown>,
    typed: (body: Record<string, unknown>) => Record<string, string>,
    field: string,
  ) {
    return async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!csrfValid(s.config, req, sha256Hex(token(req)), body.csrf)) {
        return html(
          res,
          403,
          messagePage(
            'Please try again',
            'This form has expired or did not come from this page. Go back, reload the page and submit it again.',
          ),
        );
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        const errors = Object.fromEntries(
          parsed.error.issues.map((i) => [i.path[0] === 'signature_text' ? 'name' : String(i.path[0] ?? field), i.message]),
        );
        return showForm(req, res, 400, { typed: typed(body), errors });
      }
      try {
        await run(req, parsed.data);
      } catch (err) {
        // Closed or not yet their turn meanwhile: the page shows that state.
        const known = toAppError(err);
        if (!known || ![404, 409, 410].includes(known.status)) throw err;
      }
      res.redirect(303, pagePath(token(req)));
    };
  }

  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 2000) : '');
  router.post(
    '/sign/:token',
    forms,
    post(
      signForm,
      (req, b) => signAsSigner(s, token(req), signerClient(req), b.signature_text),
      (b) => ({ name: text(b.signature_text) }),
      'consent',
    ),
  );
  router.post(
    '/sign/:token/decline',
    forms,
    post(
      declineForm,
      (req, b) => declineAsSigner(s, token(req), signerClient(req), b.reason),
      (b) => ({ reason: text(b.reason) }),
      'reason',
    ),
  );

  // Refusals (rate limit, bad form encoding) as a page, not JSON; anything else to the app's handler.
  const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
    const known = toAppError(err);
    if (!known || known.status >= 500 || !req.path.startsWith('/sign')) return next(err);
    res.set(known.headers).set(ERROR_CODE_HEADER, known.code);
    html(res, known.status, messagePage('Request refused', known.detail));
  };
  router.use(pageErrors);
  return router;
}
