/**
 * Electronic signatures. Members send a request for a contract; each signer gets a secret
 * single-purpose link (only its SHA-256 is stored) to the signing page, and the same token
 * here for API clients, to view, sign or decline without an account
 * (services/signatures/record-signer-act.ts). The workflow `signature-<id>` owns time:
 * reminders, expiry, and completion with the certificate once everyone has signed.
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { signatureView } from '../../models/signature';
import { cancelOwnedSignatureRequest, retrySealing } from '../../services/signatures/signal-signature-request';
import { declineAsSigner, signAsSigner, signerView, viewAsSigner } from '../../services/signatures/record-signer-act';
import {
  sendSignatureRequest,
  signatureRequestBody,
  signerTokenHashes,
  signingToken,
} from '../../services/signatures/send-signature-request';
import { verifySignature } from '../../services/signatures/verify-signature';
import { getSigningKey } from '../../services/signatures/signing-key';
import { getSealIdentity } from '../../services/signatures/seal-pdf';
import { getSignatureRequest, getSignedPdf, listQuery, listSignatureRequests } from '../../services/signatures/list-signatures';
import { authorize, principalOf } from '../http/middleware/auth';
import { isPrefetch, signerClient } from '../http/middleware/signer-client';
import { idempotent, type ReplayCodec } from '../http/middleware/idempotency';
import { sendPage } from '../http/pages';
import { declineBody, signBody } from '../operations/signatures';

const publicBase = (s: Engines, req: Request) => s.config.PUBLIC_BASE_URL.replace(/\/+$/, '') || `${req.protocol}://${req.get('host')}`;

/** The signer's page (api/routes/signing-page.ts); the JSON endpoints take the same token under /api/v1/signatures/sign/. */
const signingUrl = (s: Engines, req: Request, token: string) => `${publicBase(s, req)}/sign/${token}`;

/** The creation answer as replays store it: each signer without `signing_url`. */
const createdAnswer = z.looseObject({ id: z.string(), signers: z.array(z.looseObject({ id: z.string() })) });

/**
 * Signing links out of the stored replay of `POST /signatures`, and back in on a replay:
 * derived again, and only where the stored hash confirms them (not after ENCRYPTION_KEY
 * was changed, or for a request that is gone).
 */
function signingLinksCodec(s: Engines): ReplayCodec {
  return {
    stored(body) {
      const created = createdAnswer.safeParse(body);
      if (!created.success) return body;
      return { ...created.data, signers: created.data.signers.map(({ signing_url: _secret, ...signer }) => signer) };
    },
    async replayed(stored, req) {
      const created = createdAnswer.safeParse(stored);
      if (!created.success) return stored;
      const hashes = await signerTokenHashes(created.data.id);
      return {
        ...created.data,
        signers: created.data.signers.map((signer) => {
          const token = signingToken(s, created.data.id, signer.id);
          return hashes.get(signer.id) === sha256Hex(token) ? { ...signer, signing_url: signingUrl(s, req, token) } : signer;
        }),
      };
    },
  };
}

export function signaturesPublicRouter(s: Engines): Router {
  const router = Router();
  const token = (req: Request) => String(req.params.token);

  router.get('/public-key', async (_req, res) => {
    const key = await getSigningKey(s);
    res.type('application/x-pem-file').send(key.publicKeyPem);
  });

  router.get('/seal-certificate', async (_req, res) => {
    res.type('application/x-pem-file').send((await getSealIdentity(s)).certificatePem);
  });

  router.get('/sign/:token', async (req, res) => {
    const r = await viewAsSigner(s, token(req), signerClient(req), !isPrefetch(req));
    res.json(signerView(r.sig, r.signer));
  });

  router.post('/sign/:token', async (req, res) => {
    const body = signBody.parse(req.body);
    const r = await signAsSigner(s, token(req), signerClient(req), body.signature_text);
    res.json(signerView(r.sig, r.signer));
  });

  router.post('/sign/:token/decline', async (req, res) => {
    const body = declineBody.parse(req.body);
    const r = await declineAsSigner(s, token(req), signerClient(req), body.reason);
    res.json(signerView(r.sig, r.signer));
  });

  return router;
}

export function signaturesRouter(s: Engines): Router {
  const router = Router();
  const once = idempotent(s.logger, signingLinksCodec(s));
  const reminderIntervalMs = s.config.SIGNATURE_REMINDER_INTERVAL;

  router.post('/', authorize('signatures:send'), once, async (req, res) => {
    const { sig, tokens } = await sendSignatureRequest(s, principalOf(req), signatureRequestBody.parse(req.body), reminderIntervalMs);
    const view = signatureView(sig) as { signers: Array<Record<string, unknown>> };
    res.status(201).json({ ...view, signers: view.signers.map((x, i) => ({ ...x, signing_url: signingUrl(s, req, tokens[i]!) })) });
  });

  router.get('/', authorize('signatures:read'), async (req, res) => {
    const q = listQuery.parse(req.query);
    sendPage(res, 'signatures', q, await listSignatureRequests(s, principalOf(req), q));
  });

  router.get('/:id', authorize('signatures:read'), async (req, res) => {
    res.json(signatureView(await getSignatureRequest(principalOf(req), req.params.id)));
  });

  router.post('/:id/cancel', authorize('signatures:send'), async (req, res) => {
    res.json(signatureView(await cancelOwnedSignatureRequest(s, principalOf(req), req.params.id)));
  });

  router.get('/:id/verify', authorize('signatures:read'), async (req, res) => {
    res.json(await verifySignature(s, principalOf(req), req.params.id));
  });

  router.get('/:id/document.pdf', authorize('signatures:read'), async (req, res) => {
    const pdf = await getSignedPdf(principalOf(req), req.params.id);
    res.type('application/pdf').set('Content-Disposition', `attachment; filename="signature-${pdf.signatureId}.pdf"`).send(pdf.bytes);
  });

  router.post('/:id/seal', authorize('signatures:send'), async (req, res) => {
    res.status(202).json(signatureView(await retrySealing(s, principalOf(req), req.params.id)));
  });

  return router;
}
