/**
 * The OpenAPI description of the signature operations: request and answer schemas and
 * one `operation(...)` per route (api/routes/signatures.ts serves them).
 */
import { z } from 'zod';
import { idSchema, requiredText as text } from '../../platform/input';
import { SIGNATURE_STATUSES, SIGNER_STATUSES } from '../../models/signature';
import { listQuery } from '../../services/signatures/list-signatures';
import { signatureRequestBody } from '../../services/signatures/send-signature-request';
import { operation, pageOf, registry } from '../http/openapi';

export const signBody = z.object({ signature_text: text(200) });
export const declineBody = z.object({ reason: text(2000) });

const timestamp = z.iso.datetime();
const signerSchema = z.object({
  id: idSchema,
  name: z.string(),
  email: z.email(),
  order: z.number().int(),
  status: z.enum(SIGNER_STATUSES),
  viewed_at: timestamp.nullable(),
  signed_at: timestamp.nullable(),
  declined_at: timestamp.nullable(),
  decline_reason: z.string().nullable(),
  signature_text: z.string().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});
const signatureSchema = registry.register(
  'SignatureRequest',
  z.object({
    id: idSchema,
    contract_id: idSchema,
    contract_title: z.string(),
    status: z.enum(SIGNATURE_STATUSES),
    ordered: z.boolean(),
    message: z.string().nullable(),
    signers: z.array(signerSchema),
    document_hash: z.string().meta({
      description:
        "SHA-256 (hex) of the document as frozen when the request was sent: the PDF of record's bytes when the contract named one, else the UTF-8 of its content",
    }),
    requested_by_name: z.string().nullable(),
    expires_at: timestamp,
    completed_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    record_document_id: z.string().nullable().meta({
      description: "The contract's PDF of record when the request was sent: then that file is the document signed, not the content",
    }),
    record_pdf_sha256: z.string().nullable().meta({
      description: 'SHA-256 (hex) of that PDF as frozen (a copy) at request time; signers read and download it and sealing appends to it',
    }),
    sealed_at: timestamp.nullable().meta({ description: 'When the signed PDF (GET /signatures/{id}/document.pdf) was sealed' }),
    pdf_sha256: z.string().nullable().meta({ description: 'SHA-256 (hex) of the sealed PDF' }),
    sealing_error: z.string().nullable().meta({ description: 'Why sealing the PDF failed; POST /signatures/{id}/seal retries' }),
  }),
);
const createdSchema = signatureSchema.extend({
  signers: z.array(
    signerSchema.extend({ signing_url: z.url().meta({ description: "The signer's secret link; shown only in this response" }) }),
  ),
});
const certificateSchema = registry.register(
  'SignatureCertificate',
  z.object({
    algorithm: z.literal('Ed25519'),
    payload: z.string().meta({
      description:
        'The exact signed bytes: canonical JSON of { version, signature_id, contract_id, document_hash, signers, audit_head, issued_at }',
    }),
    signature: z.string().meta({ description: 'Base64 Ed25519 signature over the UTF-8 bytes of `payload`' }),
    key_id: z.string().meta({ description: 'First 16 hex characters of the SHA-256 of the public key PEM' }),
  }),
);
const verifySchema = z.object({
  facts_at_sending: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: 'The facts the approval policies were judged on when the request was sent (null for requests from before)' }),
  approvals: z
    .array(
      z.object({
        type: z.enum(['approved', 'approval_overridden']),
        name: z.string().nullable(),
        at: z.string(),
        detail: z.string().nullable(),
        facts: z.record(z.string(), z.unknown()).nullable().meta({
          description:
            'The facts the approval covered (type, value, currency, counterparty, vendor and risk, key terms); null on entries from before',
        }),
      }),
    )
    .meta({
      description:
        "The approvals (who, when, step and version hash, the facts they covered) or the owner's override (with its reason) the sent version carried, from the audit trail",
    }),
  valid: z.boolean(),
  document_hash: z.string(),
  signers: z.array(z.object({ name: z.string(), email: z.email(), signed_at: timestamp.nullable() })),
  // A union, not .nullable(): zod-to-openapi writes a nullable $ref as allOf [ref, null], which null fails.
  certificate: z.union([certificateSchema, z.null()]),
  reasons: z.array(z.string()).optional().meta({ description: 'Why `valid` is false' }),
  seal: z
    .object({
      status: z.enum(['sealed', 'pending', 'failed', 'none']),
      valid: z.boolean(),
      covers_whole_document: z.boolean(),
      sealed_at: timestamp.nullable(),
      signed_by: z.string().nullable(),
      service_certificate: z.boolean(),
      reason: z.string().optional(),
    })
    .meta({ description: "The sealed PDF's PAdES signature: intact, by the service's sealing certificate, covering the whole file" }),
});
const signerViewSchema = z.object({
  signature_id: idSchema,
  status: z.enum(SIGNATURE_STATUSES),
  contract_title: z.string(),
  document: z.string().meta({ description: 'The contract content signed; empty when a PDF of record is the document' }),
  document_pages: z
    .array(z.string())
    .meta({ description: "The PDF of record's text, one entry per page, as frozen; empty when the content is the document" }),
  document_hash: z.string(),
  requested_by: z.object({ name: z.string().nullable() }),
  message: z.string().nullable(),
  expires_at: timestamp,
  signer: z.object({ name: z.string(), email: z.email(), status: z.enum(SIGNER_STATUSES) }),
  your_turn: z.boolean().meta({ description: 'False while an earlier signer of an ordered request has not signed' }),
});

const tag = 'Signatures';
const one = { description: 'The signature request', schema: signatureSchema };
const gone = 'The link was used, or the request is expired, cancelled, declined or completed';
/** Why `/signatures/sign/{token}` and `/signatures/{id}/...` never compete for one URL. */
const signerPath =
  'A signer route: `sign` is never an id (ids are 24 hex characters), so `/signatures/sign/...` is always this operation, never `/signatures/{id}/...`.';
operation({
  path: '/signatures',
  method: 'post',
  tag,
  summary: 'Send a contract for signature (honours Idempotency-Key)',
  description:
    'Freezes the contract content and its SHA-256, gives each signer a secret signing link, emits signature.requested and starts the workflow signature-<id> (reminders, expiry, completion). `ordered: true` lets signers sign one after another in the given order; otherwise in parallel.',
  body: signatureRequestBody,
  responses: {
    201: {
      description:
        "The request, with each signer's signing_url (shown only here, and in a replay under the same Idempotency-Key, which re-derives the links rather than storing them)",
      schema: createdSchema,
    },
    403: 'No owner of the organization has verified their email address yet (`email_not_verified`), or the role does not allow it',
    409: "Idempotency-Key reused with a different body, or still in flight; `approval_required`: today's policies, on today's facts (the current version's key terms, extracted first if the text changed), call for approvals no approved or overridden request of this document and these facts covers; `approval_terms_pending`: the text changed again while its terms were extracted",
    429: "The signers would pass the organization's daily recipient quota, `MAIL_RECIPIENTS_PER_ORG_PER_DAY` (`mail_quota_exceeded`)",
    503: 'The workflow engine is unavailable; nothing was sent',
  },
});
operation({
  path: '/signatures',
  method: 'get',
  tag,
  summary: 'List signature requests (newest first), filtered by status or contract',
  query: listQuery,
  responses: { 200: { description: 'A page of requests', schema: pageOf('signatures', signatureSchema) } },
});
operation({ path: '/signatures/{id}', method: 'get', tag, summary: 'Get a signature request', responses: { 200: one } });
operation({
  path: '/signatures/{id}/cancel',
  method: 'post',
  tag,
  summary: 'Cancel a pending request; its signing links stop working',
  responses: { 200: one, 409: 'The request is no longer pending' },
});
operation({
  path: '/signatures/{id}/verify',
  method: 'get',
  tag,
  summary: "Verify a request's evidence",
  description:
    "Recomputes the SHA-256 of the contract's current content against the hash frozen at request time, checks the hash chain of the audit trail, and verifies the Ed25519 certificate with the service key (GET /signatures/public-key). `valid` is true only for a completed request where all three hold; `reasons` says what failed.",
  responses: { 200: { description: 'The verification', schema: verifySchema } },
});
operation({
  path: '/signatures/{id}/document.pdf',
  method: 'get',
  tag,
  summary: "The sealed PDF: the document, a signature page and the audit trail, sealed with the service's PAdES certificate",
  responses: {
    200: { description: 'The PDF', schema: z.string(), contentType: 'application/pdf' },
    409: 'Not sealed (yet): see sealed_at and sealing_error',
  },
});
operation({
  path: '/signatures/{id}/seal',
  method: 'post',
  tag,
  summary: 'Retry sealing the PDF of a completed request after a sealing error',
  responses: { 202: one, 409: 'Not completed, already sealed, or no sealing error' },
});
operation({
  path: '/signatures/seal-certificate',
  method: 'get',
  tag,
  public: true,
  summary: 'The X.509 certificate (PEM) that seals signed PDFs, to trust when validating them offline',
  responses: { 200: { description: 'PEM text', schema: z.string(), contentType: 'application/x-pem-file' } },
});
operation({
  path: '/signatures/public-key',
  method: 'get',
  tag,
  public: true,
  summary: 'The Ed25519 public key (SPKI PEM) that verifies signature certificates offline',
  responses: { 200: { description: 'PEM text', schema: z.string(), contentType: 'application/x-pem-file' } },
});
operation({
  path: '/signatures/sign/{token}',
  method: 'get',
  tag,
  public: true,
  description: signerPath,
  summary: 'Signer: read the document (marks the signer as having viewed it, once)',
  responses: { 200: { description: 'What the signer is asked to sign', schema: signerViewSchema }, 410: gone },
});
operation({
  path: '/signatures/sign/{token}',
  method: 'post',
  tag,
  public: true,
  description: signerPath,
  summary: 'Signer: sign with a typed signature (name, email, time, IP and user agent are recorded)',
  body: signBody,
  responses: {
    200: { description: "The signer's view after signing", schema: signerViewSchema },
    409: 'An earlier signer of an ordered request has not signed yet',
    410: gone,
  },
});
operation({
  path: '/signatures/sign/{token}/decline',
  method: 'post',
  tag,
  public: true,
  description: signerPath,
  summary: 'Signer: decline with a reason; the whole request ends declined',
  body: declineBody,
  responses: { 200: { description: "The signer's view after declining", schema: signerViewSchema }, 410: gone },
});
