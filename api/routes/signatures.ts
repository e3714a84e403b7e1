/**
 * Electronic signatures. Members send a request for a contract; each signer gets a secret
 * single-purpose link (only its SHA-256 is stored) to the signing page, and the same token
 * here for API clients, to view, sign or decline without an account
 * (services/signatures/record-signer-act.ts). The workflow `signature-<id>` owns time:
 * reminders, expiry, and completion with the certificate once everyone has signed.
 */
import { Router, type Request } from 'express';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { actorOf, recordEvent, type Actor } from '../../platform/outbox/record-event';
import { pageQuery } from '../../platform/lists/pagination';
import { listPage } from '../../platform/lists/list-index';
import { derivedSecret, encryptSecret, sha256Hex } from '../../platform/security/crypto';
import { startWorkflow } from '../../platform/temporal/client';
import { cancelSignatureRequest } from '../../services/signatures/signature-requests';
import { declineAsSigner, signAsSigner, signerView, viewAsSigner } from '../../services/signatures/record-signer-act';
import { appendAudit, brokenAuditLink, certificateValid, sha256, type Certificate, type CertificatePayload } from '../../services/signatures/signature-evidence';
import { getSigningKey } from '../../services/signatures/signing-key';
import { msToNumber } from '@temporalio/common/lib/time';
import type { EventType } from '../../models/event';
import { inOrg, isObjectId } from '../../models/base';
import { Contract } from '../../models/contract';
import { SIGNATURE_STATUSES, SIGNER_STATUSES, Signature, signatureList, signatureView, auditOf, type AuditEntryInput, type SignatureRecord } from '../../models/signature';
import { retrySealSignal, signatureRequest, type SignatureWorkflowInput } from '../../workflows/signature.shared';
import { sealedPdfOf } from '../../services/signatures/signed-pdf-store';
import { freezePdfOfRecord } from '../../services/signatures/pdf-of-record';
import { getSealIdentity } from '../../services/signatures/seal-pdf';
import { sealReport } from '../../services/signatures/verify-seal';
import { authorize, principalOf } from '../http/middleware/auth';
import { signerClient } from '../http/middleware/signer-client';
import { idempotent, type ReplayCodec } from '../http/middleware/idempotency';
import { idSchema, operation, pageOf, registry } from '../http/openapi';
import { badRequest, conflict, notFound, unavailable } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';

const DAY_MS = 24 * 3600 * 1000;

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const createBody = z
  .object({
    contract_id: idSchema,
    signers: z
      .array(z.object({ name: text(200), email: z.email('must be an email address').trim().toLowerCase() }), 'must be a list of { name, email }')
      .min(1, 'must name at least one signer')
      .max(20, 'must name at most 20 signers'),
    ordered: z.boolean('must be true or false').default(false),
    message: z.string().trim().max(2000, 'must be at most 2000 characters').optional(),
    expires_in_days: z.number('must be a number').int('must be a whole number of days').min(1, 'must be at least 1').max(365, 'must be at most 365').default(30),
  })
  .superRefine((b, ctx) => {
    if (new Set(b.signers.map((x) => x.email)).size !== b.signers.length) ctx.addIssue({ code: 'custom', path: ['signers'], message: 'signer emails must be unique' });
  });

const listQuery = pageQuery.extend({
  status: z.enum(SIGNATURE_STATUSES, `must be one of ${SIGNATURE_STATUSES.join(', ')}`).optional(),
  contract_id: idSchema.optional(),
});

const signBody = z.object({ signature_text: text(200) });
const declineBody = z.object({ reason: text(2000) });

const timestamp = z.iso.datetime();
const signerSchema = z.object({
  id: idSchema, name: z.string(), email: z.email(), order: z.number().int(), status: z.enum(SIGNER_STATUSES),
  viewed_at: timestamp.nullable(), signed_at: timestamp.nullable(), declined_at: timestamp.nullable(), decline_reason: z.string().nullable(),
  signature_text: z.string().nullable(), ip: z.string().nullable(), user_agent: z.string().nullable(),
});
const signatureSchema = registry.register('SignatureRequest', z.object({
  id: idSchema, contract_id: idSchema, contract_title: z.string(), status: z.enum(SIGNATURE_STATUSES), ordered: z.boolean(),
  message: z.string().nullable(), signers: z.array(signerSchema), document_hash: z.string().meta({ description: 'SHA-256 (hex) of the contract content as sent' }),
  requested_by_name: z.string().nullable(), expires_at: timestamp, completed_at: timestamp.nullable(), created_at: timestamp, updated_at: timestamp,
  record_document_id: z.string().nullable().meta({ description: 'The contract\'s PDF of record when the request was sent' }),
  record_pdf_sha256: z.string().nullable().meta({ description: 'SHA-256 (hex) of that PDF, frozen at request time; sealing appends to exactly that file' }),
  sealed_at: timestamp.nullable().meta({ description: 'When the signed PDF (GET /signatures/{id}/document.pdf) was sealed' }),
  pdf_sha256: z.string().nullable().meta({ description: 'SHA-256 (hex) of the sealed PDF' }),
  sealing_error: z.string().nullable().meta({ description: 'Why sealing the PDF failed; POST /signatures/{id}/seal retries' }),
}));
const createdSchema = signatureSchema.extend({
  signers: z.array(signerSchema.extend({ signing_url: z.url().meta({ description: 'The signer\'s secret link; shown only in this response' }) })),
});
const certificateSchema = registry.register('SignatureCertificate', z.object({
  algorithm: z.literal('Ed25519'),
  payload: z.string().meta({ description: 'The exact signed bytes: canonical JSON of { version, signature_id, contract_id, document_hash, signers, audit_head, issued_at }' }),
  signature: z.string().meta({ description: 'Base64 Ed25519 signature over the UTF-8 bytes of `payload`' }),
  key_id: z.string().meta({ description: 'First 16 hex characters of the SHA-256 of the public key PEM' }),
}));
const verifySchema = z.object({
  valid: z.boolean(), document_hash: z.string(),
  signers: z.array(z.object({ name: z.string(), email: z.email(), signed_at: timestamp.nullable() })),
  // A union, not .nullable(): zod-to-openapi writes a nullable $ref as allOf [ref, null], which null fails.
  certificate: z.union([certificateSchema, z.null()]),
  reasons: z.array(z.string()).optional().meta({ description: 'Why `valid` is false' }),
  seal: z.object({
    status: z.enum(['sealed', 'pending', 'failed', 'none']), valid: z.boolean(), covers_whole_document: z.boolean(), sealed_at: timestamp.nullable(),
    signed_by: z.string().nullable(), service_certificate: z.boolean(), reason: z.string().optional(),
  }).meta({ description: 'The sealed PDF\'s PAdES signature: intact, by the service\'s sealing certificate, covering the whole file' }),
});
const signerViewSchema = z.object({
  signature_id: idSchema, status: z.enum(SIGNATURE_STATUSES), contract_title: z.string(), document: z.string(), document_hash: z.string(),
  requested_by: z.object({ name: z.string().nullable() }), message: z.string().nullable(), expires_at: timestamp,
  signer: z.object({ name: z.string(), email: z.email(), status: z.enum(SIGNER_STATUSES) }),
  your_turn: z.boolean().meta({ description: 'False while an earlier signer of an ordered request has not signed' }),
});

const tag = 'Signatures';
const one = { description: 'The signature request', schema: signatureSchema };
const gone = 'The link was used, or the request is expired, cancelled, declined or completed';
/** Why `/signatures/sign/{token}` and `/signatures/{id}/...` never compete for one URL. */
const signerPath = 'A signer route: `sign` is never an id (ids are 24 hex characters), so `/signatures/sign/...` is always this operation, never `/signatures/{id}/...`.';
operation({ path: '/signatures', method: 'post', tag, summary: 'Send a contract for signature (honours Idempotency-Key)', description: 'Freezes the contract content and its SHA-256, gives each signer a secret signing link, emits signature.requested and starts the workflow signature-<id> (reminders, expiry, completion). `ordered: true` lets signers sign one after another in the given order; otherwise in parallel.', body: createBody, responses: { 201: { description: 'The request, with each signer\'s signing_url (shown only here, and in a replay under the same Idempotency-Key, which re-derives the links rather than storing them)', schema: createdSchema }, 409: 'Idempotency-Key reused with a different body, or still in flight', 503: 'The workflow engine is unavailable; nothing was sent' } });
operation({ path: '/signatures', method: 'get', tag, summary: 'List signature requests (newest first), filtered by status or contract', query: listQuery, responses: { 200: { description: 'A page of requests', schema: pageOf('signatures', signatureSchema) } } });
operation({ path: '/signatures/{id}', method: 'get', tag, summary: 'Get a signature request', responses: { 200: one } });
operation({ path: '/signatures/{id}/cancel', method: 'post', tag, summary: 'Cancel a pending request; its signing links stop working', responses: { 200: one, 409: 'The request is no longer pending' } });
operation({ path: '/signatures/{id}/verify', method: 'get', tag, summary: 'Verify a request\'s evidence', description: 'Recomputes the SHA-256 of the contract\'s current content against the hash frozen at request time, checks the hash chain of the audit trail, and verifies the Ed25519 certificate with the service key (GET /signatures/public-key). `valid` is true only for a completed request where all three hold; `reasons` says what failed.', responses: { 200: { description: 'The verification', schema: verifySchema } } });
operation({ path: '/signatures/{id}/document.pdf', method: 'get', tag, summary: 'The sealed PDF: the document, a signature page and the audit trail, sealed with the service\'s PAdES certificate', responses: { 200: { description: 'The PDF', schema: z.string(), contentType: 'application/pdf' }, 409: 'Not sealed (yet): see sealed_at and sealing_error' } });
operation({ path: '/signatures/{id}/seal', method: 'post', tag, summary: 'Retry sealing the PDF of a completed request after a sealing error', responses: { 202: one, 409: 'Not completed, already sealed, or no sealing error' } });
operation({ path: '/signatures/seal-certificate', method: 'get', tag, public: true, summary: 'The X.509 certificate (PEM) that seals signed PDFs, to trust when validating them offline', responses: { 200: { description: 'PEM text', schema: z.string(), contentType: 'application/x-pem-file' } } });
operation({ path: '/signatures/public-key', method: 'get', tag, public: true, summary: 'The Ed25519 public key (SPKI PEM) that verifies signature certificates offline', responses: { 200: { description: 'PEM text', schema: z.string(), contentType: 'application/x-pem-file' } } });
operation({ path: '/signatures/sign/{token}', method: 'get', tag, public: true, description: signerPath, summary: 'Signer: read the document (marks the signer as having viewed it, once)', responses: { 200: { description: 'What the signer is asked to sign', schema: signerViewSchema }, 410: gone } });
operation({ path: '/signatures/sign/{token}', method: 'post', tag, public: true, description: signerPath, summary: 'Signer: sign with a typed signature (name, email, time, IP and user agent are recorded)', body: signBody, responses: { 200: { description: 'The signer\'s view after signing', schema: signerViewSchema }, 409: 'An earlier signer of an ordered request has not signed yet', 410: gone } });
operation({ path: '/signatures/sign/{token}/decline', method: 'post', tag, public: true, description: signerPath, summary: 'Signer: decline with a reason; the whole request ends declined', body: declineBody, responses: { 200: { description: 'The signer\'s view after declining', schema: signerViewSchema }, 410: gone } });

function emit(sig: SignatureRecord, type: EventType, actor: Actor, summary: string, data: Record<string, unknown>) {
  return recordEvent({
    organizationId: String(sig.organization_id),
    type,
    data: { signature_id: sig.id, contract_id: String(sig.contract_id), ...data },
    actor,
    resource: { type: 'signature', id: sig.id },
    summary,
  });
}

const publicBase = (s: Services, req: Request) => s.config.PUBLIC_BASE_URL.replace(/\/+$/, '') || `${req.protocol}://${req.get('host')}`;

/**
 * A signer's link token, derived from the request and signer ids (platform/security/crypto.ts
 * `derivedSecret`): only its SHA-256 is stored, and an idempotent replay of the creation
 * can show the same link again without the token being kept anywhere.
 */
const signingToken = (s: Services, signatureId: string, signerId: string) => derivedSecret(s.config, 'signing-link', `${signatureId}:${signerId}`);

/** The signer's page (api/routes/signing-page.ts); the JSON endpoints take the same token under /api/v1/signatures/sign/. */
const signingUrl = (s: Services, req: Request, token: string) => `${publicBase(s, req)}/sign/${token}`;

/** The creation answer as replays store it: each signer without `signing_url`. */
const createdAnswer = z.looseObject({ id: z.string(), signers: z.array(z.looseObject({ id: z.string() })) });

/**
 * Signing links out of the stored replay of `POST /signatures`, and back in on a replay:
 * derived again, and only where the stored hash confirms them (not after ENCRYPTION_KEY
 * was changed, or for a request that is gone).
 */
function signingLinksCodec(s: Services): ReplayCodec {
  return {
    stored(body) {
      const created = createdAnswer.safeParse(body);
      if (!created.success) return body;
      return { ...created.data, signers: created.data.signers.map(({ signing_url: _secret, ...signer }) => signer) };
    },
    async replayed(stored, req) {
      const created = createdAnswer.safeParse(stored);
      if (!created.success) return stored;
      const sig = isObjectId(created.data.id) ? await Signature.findById(created.data.id, { signers: 1 }).lean() : null;
      const hashes = new Map(sig?.signers.map((x) => [String(x._id), x.token_hash]));
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

export function signaturesPublicRouter(s: Services): Router {
  const router = Router();
  const token = (req: Request) => String(req.params.token);

  router.get('/public-key', async (_req, res) => {
    const key = await getSigningKey(s.config);
    res.type('application/x-pem-file').send(key.publicKeyPem);
  });

  router.get('/seal-certificate', async (_req, res) => {
    res.type('application/x-pem-file').send((await getSealIdentity(s.config)).certificatePem);
  });

  router.get('/sign/:token', async (req, res) => {
    const r = await viewAsSigner(s, token(req), signerClient(req));
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

export function signaturesRouter(s: Services): Router {
  const router = Router();
  const once = idempotent(s.logger, signingLinksCodec(s));
  const reminderIntervalMs = msToNumber(s.config.SIGNATURE_REMINDER_INTERVAL as Parameters<typeof msToNumber>[0]);

  router.post('/', authorize('signatures:send'), once, async (req, res) => {
    const p = principalOf(req);
    const body = createBody.parse(req.body);
    const contract = await Contract.findOne(inOrg(p.organizationId, body.contract_id)!);
    if (!contract) throw notFound('Contract');
    if (!contract.content.trim() && !contract.document_id) throw badRequest('contract_id: the contract has no content to sign; add or draft it first, or name its PDF of record (document_id)');
    const record = await freezePdfOfRecord(contract);

    const now = new Date();
    const requested: AuditEntryInput = { type: 'requested', at: now.toISOString(), name: p.name, detail: `${body.signers.length} signer(s), ${body.ordered ? 'ordered' : 'parallel'}` };
    const sig = new Signature({
      organization_id: new Types.ObjectId(p.organizationId),
      contract_id: contract._id,
      contract_title: contract.title,
      ordered: body.ordered,
      message: body.message || null,
      signers: body.signers.map((x, i) => ({ ...x, order: i + 1 })),
      document: contract.content,
      document_hash: sha256(contract.content),
      ...record,
      audit_trail: [appendAudit([], requested)],
      requested_by: new Types.ObjectId(p.userId),
      requested_by_name: p.name,
      expires_at: new Date(now.getTime() + body.expires_in_days * DAY_MS),
      workflow_id: null,
    });
    // The ids exist before the write, so each link's token is derived from them. The sealed
    // token lets the service mail each signer's link when it is their turn (services/mail/signatures.ts).
    const tokens = sig.signers.map((x) => signingToken(s, sig.id, String(x._id)));
    sig.signers.forEach((x, i) => {
      x.token_hash = sha256Hex(tokens[i]!);
      x.token_sealed = encryptSecret(s.config, tokens[i]!);
    });
    await sig.save();
    // A contract deleted since it was read: its deletion cancels only the requests it can see,
    // so this one is withdrawn here (services/contracts/contract-deletion.ts).
    if (!(await Contract.exists({ _id: contract._id, organization_id: contract.organization_id }))) {
      await Signature.deleteOne({ _id: sig._id });
      throw notFound('Contract');
    }
    const workflowId = `signature-${sig.id}`;
    const input: SignatureWorkflowInput = { signatureId: sig.id, signerIds: sig.signers.map((x) => String(x._id)), expiresAtMs: sig.expires_at.getTime(), reminderIntervalMs };
    try {
      await startWorkflow(s, signatureRequest, { workflowId, args: [input], organizationId: p.organizationId, recordId: sig.id });
    } catch (err) {
      await Signature.deleteOne({ _id: sig._id });
      s.logger.error({ err, signatureId: sig.id }, 'could not start the signature workflow');
      throw unavailable('The workflow engine is unavailable; nothing was sent, try again shortly');
    }
    sig.workflow_id = workflowId;
    await sig.save();
    await emit(sig, 'signature.requested', actorOf(p), `Signature requested for "${sig.contract_title}" from ${sig.signers.map((x) => x.name).join(', ')}`, {
      contract_title: sig.contract_title,
      signers: sig.signers.map((x) => ({ name: x.name, email: x.email })),
      ordered: sig.ordered,
      expires_at: sig.expires_at.toISOString(),
    });
    const view = signatureView(sig) as { signers: Array<Record<string, unknown>> };
    res.status(201).json({ ...view, signers: view.signers.map((x, i) => ({ ...x, signing_url: signingUrl(s, req, tokens[i]!) })) });
  });

  router.get('/', authorize('signatures:read'), async (req, res) => {
    const p = principalOf(req);
    const q = listQuery.parse(req.query);
    const equal = { ...(q.status ? { status: q.status } : {}), ...(q.contract_id ? { contract_id: new Types.ObjectId(q.contract_id) } : {}) };
    const { items, total } = await listPage(s, signatureList, p.organizationId, { equal }, q);
    res.json({ signatures: items, total, page: q.page, page_size: q.page_size });
  });

  router.get('/:id', authorize('signatures:read'), async (req, res) => {
    res.json(signatureView(await findOwned(Signature, principalOf(req), req.params.id, 'Signature request')));
  });

  router.post('/:id/cancel', authorize('signatures:send'), async (req, res) => {
    const p = principalOf(req);
    const sig = await findOwned(Signature, p, req.params.id, 'Signature request');
    const cancelled = await cancelSignatureRequest(s, sig._id, p.name);
    if (!cancelled) throw conflict(`The signature request is already ${(await Signature.findById(sig._id))?.status ?? sig.status}`);
    res.json(signatureView(cancelled));
  });

  router.get('/:id/verify', authorize('signatures:read'), async (req, res) => {
    const sig = await findOwned(Signature, principalOf(req), req.params.id, 'Signature request');
    const reasons: string[] = [];
    const contract = await Contract.findOne({ _id: sig.contract_id, organization_id: sig.organization_id }).lean();
    if (!contract) reasons.push('the contract no longer exists');
    else if (sha256(contract.content) !== sig.document_hash) reasons.push('the contract content changed after the signature request');
    if (sha256(sig.document) !== sig.document_hash) reasons.push('the frozen document does not match its hash');
    const trail = auditOf(sig);
    const broken = brokenAuditLink(trail);
    if (broken !== -1) reasons.push(`the audit trail is broken at entry ${broken}`);
    const certificate = (sig.certificate ?? null) as Certificate | null;
    if (sig.status !== 'completed' || !certificate) reasons.push(`the request is ${sig.status}, not completed`);
    else {
      const key = await getSigningKey(s.config);
      if (!certificateValid(key.publicKey, certificate)) reasons.push('the certificate signature does not verify');
      else {
        const payload = JSON.parse(certificate.payload) as CertificatePayload;
        if (payload.signature_id !== sig.id || payload.document_hash !== sig.document_hash) reasons.push('the certificate belongs to other evidence');
        if (!trail.some((e) => e.type === 'completed' && e.hash === payload.audit_head)) reasons.push('the certificate does not match the audit trail');
      }
    }
    res.json({
      valid: reasons.length === 0,
      document_hash: sig.document_hash,
      signers: sig.signers.map((x) => ({ name: x.name, email: x.email, signed_at: x.signed_at })),
      certificate,
      ...(reasons.length ? { reasons } : {}),
      seal: await sealReport(s, sig),
    });
  });

  router.get('/:id/document.pdf', authorize('signatures:read'), async (req, res) => {
    const sig = await findOwned(Signature, principalOf(req), req.params.id, 'Signature request');
    const pdf = await sealedPdfOf(sig.id);
    if (!pdf) throw conflict(sig.sealing_error ? `The signed PDF could not be sealed: ${sig.sealing_error}` : `The signed PDF is not sealed yet (the request is ${sig.status})`);
    res.type('application/pdf').set('Content-Disposition', `attachment; filename="signature-${sig.id}.pdf"`).send(pdf.bytes);
  });

  router.post('/:id/seal', authorize('signatures:send'), async (req, res) => {
    const sig = await findOwned(Signature, principalOf(req), req.params.id, 'Signature request');
    if (sig.status !== 'completed' || sig.sealed_at || !sig.sealing_error) throw conflict(sig.sealed_at ? 'The signed PDF is already sealed' : 'Only a completed request whose sealing failed can be retried');
    await s.temporalConnection.withDeadline(Date.now() + 5000, () => s.temporal.workflow.getHandle(`signature-${sig.id}`).signal(retrySealSignal)).catch((err: unknown) => {
      s.logger.error({ err, signatureId: sig.id }, 'could not signal the sealing retry');
      throw unavailable('The workflow engine is unavailable; try again shortly');
    });
    res.status(202).json(signatureView(sig));
  });

  return router;
}
