/**
 * Sending a contract for signature: freeze its content (or its PDF of record) and hash,
 * give each signer a secret link, start the workflow `signature-<id>` that owns reminders,
 * expiry and completion, and tell the organization (`signature.requested`).
 */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { derivedSecret, encryptSecret, sha256Hex } from '../../platform/security/crypto';
import { canonicalJson } from '../../platform/security/canonical-json';
import { startWorkflowOrDiscard } from '../../platform/temporal/client';
import { badRequest, notFound } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { idSchema, requiredText } from '../../platform/input';
import { Contract } from '../../models/contract';
import { Signature, type AuditEntryInput, type SignatureRecord } from '../../models/signature';
import { signature, signatureWorkflowId, type SignatureWorkflowInput } from '../../workflows/signature.shared';
import { reserveRecipients } from '../mail/reserve-recipients';
import { freezeDocument } from './pdf-of-record';
import { appendAudit } from './signature-evidence';
import { approvalForSigning } from '../approvals/approval-gate';
import type { ApprovalRecord } from '../../models/approval';

const DAY_MS = 24 * 3600 * 1000;

/** The approvals the sent version carries, with the facts they covered, as audit entries (the sealed PDF's audit page and /verify list the trail). */
function approvalAudit(a: ApprovalRecord | null): AuditEntryInput[] {
  if (!a) return [];
  const version = `version ${a.version_number}, sha256 ${a.version_sha256}`;
  const facts = canonicalJson(a.facts);
  const decisions = a.groups.flatMap((g) =>
    g.decisions
      .filter((d) => d.decision === 'approved')
      .map((d): AuditEntryInput => ({
        type: 'approved',
        at: d.at.toISOString(),
        name: d.name,
        detail: `step ${g.step}; ${version}${d.comment ? `; ${d.comment}` : ''}`,
        facts,
      })),
  );
  const o = a.override;
  return o?.at
    ? [
        ...decisions,
        {
          type: 'approval_overridden',
          at: o.at.toISOString(),
          name: o.name ?? null,
          detail: `reason: ${o.reason ?? ''}; ${version}`,
          facts,
        },
      ]
    : decisions;
}

export const signatureRequestBody = z
  .object({
    contract_id: idSchema,
    signers: z
      .array(
        z.object({ name: requiredText(200), email: z.email('must be an email address').trim().toLowerCase() }),
        'must be a list of { name, email }',
      )
      .min(1, 'must name at least one signer')
      .max(20, 'must name at most 20 signers'),
    ordered: z.boolean('must be true or false').default(false),
    message: z.string().trim().max(2000, 'must be at most 2000 characters').optional(),
    expires_in_days: z
      .number('must be a number')
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(365, 'must be at most 365')
      .default(30),
  })
  .superRefine((b, ctx) => {
    if (new Set(b.signers.map((x) => x.email)).size !== b.signers.length)
      ctx.addIssue({ code: 'custom', path: ['signers'], message: 'signer emails must be unique' });
  });
export type SignatureRequestInput = z.infer<typeof signatureRequestBody>;

/**
 * A signer's link token, derived from the request and signer ids (`derivedSecret`): only its
 * SHA-256 is stored, and an idempotent replay of the creation can show the same link again
 * without the token being kept anywhere.
 */
export const signingToken = (s: Engines, signatureId: string, signerId: string) =>
  derivedSecret(s.config, 'signing-link', `${signatureId}:${signerId}`);

/** The request as sent, and each signer's link token in signer order (shown once). */
/** Each signer's stored link hash, by signer id: a replayed create gives back only the links they still confirm. */
export async function signerTokenHashes(signatureId: string): Promise<Map<string, string>> {
  const sig = Types.ObjectId.isValid(signatureId) ? await Signature.findById(signatureId, { signers: 1 }).lean() : null;
  return new Map(sig?.signers.map((x) => [String(x._id), x.token_hash]));
}

export async function sendSignatureRequest(
  s: Engines,
  p: Principal,
  body: SignatureRequestInput,
  reminderIntervalMs: number,
): Promise<{ sig: SignatureRecord; tokens: string[] }> {
  const contract = await findOwned(Contract, p, body.contract_id, 'Contract');
  if (!contract.content.trim() && !contract.document_id)
    throw badRequest('contract_id: the contract has no content to sign; add or draft it first, or name its PDF of record (document_id)');
  const frozen = await freezeDocument(s, contract);
  // The approvals bind to the version's SHA-256 (the frozen document's) and to the facts judged now.
  const { approval, facts } = await approvalForSigning(s, p, contract, frozen.document_hash);
  // Every signer is mailed a link: a verified owner and the daily recipient quota first.
  await reserveRecipients(
    s,
    p.organizationId,
    body.signers.map((x) => x.email),
  );

  const now = new Date();
  const requested: AuditEntryInput = {
    type: 'requested',
    at: now.toISOString(),
    name: p.name,
    detail: `${body.signers.length} signer(s), ${body.ordered ? 'ordered' : 'parallel'}; document SHA-256 ${frozen.document_hash} (${frozen.record_document_id ? 'PDF of record' : 'contract content'})`,
    // What the approval policies were judged on when it went out, approval or none.
    facts: canonicalJson(facts),
  };
  const sig = new Signature({
    organization_id: new Types.ObjectId(p.organizationId),
    contract_id: contract._id,
    contract_title: contract.title,
    ordered: body.ordered,
    message: body.message || null,
    signers: body.signers.map((x, i) => ({ ...x, order: i + 1 })),
    ...frozen,
    audit_trail: approvalAudit(approval).reduce((trail, e) => [...trail, appendAudit(trail, e)], [appendAudit([], requested)]),
    requested_by: new Types.ObjectId(p.userId),
    requested_by_name: p.name,
    expires_at: new Date(now.getTime() + body.expires_in_days * DAY_MS),
    workflow_id: null,
  });
  // The ids exist before the write, so each link's token is derived from them. The sealed
  // token lets the service mail each signer's link when it is their turn (signature-mail.ts).
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
  const workflowId = signatureWorkflowId(sig.id);
  const input: SignatureWorkflowInput = {
    signatureId: sig.id,
    signerIds: sig.signers.map((x) => String(x._id)),
    expiresAtMs: sig.expires_at.getTime(),
    reminderIntervalMs,
    maxReminders: s.config.SIGNATURE_REMINDERS_MAX,
  };
  await startWorkflowOrDiscard(
    s,
    signature,
    { workflowId, args: [input], organizationId: p.organizationId, recordId: sig.id },
    { discard: () => Signature.deleteOne({ _id: sig._id }), notKept: 'nothing was sent' },
  );
  sig.workflow_id = workflowId;
  await sig.save();
  await recordEvent({
    organizationId: p.organizationId,
    type: 'signature.requested',
    data: {
      signature_id: sig.id,
      contract_id: String(sig.contract_id),
      contract_title: sig.contract_title,
      signers: sig.signers.map((x) => ({ name: x.name, email: x.email })),
      ordered: sig.ordered,
      expires_at: sig.expires_at.toISOString(),
    },
    actor: actorOf(p),
    resource: { type: 'signature', id: sig.id },
    summary: `Signature requested for "${sig.contract_title}" from ${sig.signers.map((x) => x.name).join(', ')}`,
  });
  return { sig, tokens };
}
