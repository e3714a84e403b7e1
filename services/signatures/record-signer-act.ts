/**
 * A signer's acts through their secret link: view, sign, decline. The JSON endpoints
 * (`/api/v1/signatures/sign/<token>`) and the signing page (`/sign/<token>`) both come
 * here. Every act is written first, with its audit entry and event, in one conditional
 * write (`changeWithAudit`, ./change-with-audit.ts), and then signalled to the workflow
 * `signature-<id>`; a signal that cannot be delivered loses nothing, the workflow re-reads
 * the stored acts on its next timer.
 */
import { trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { recordEvent, type Actor } from '../../platform/outbox/record-event';
import { sha256Hex } from '../../platform/security/crypto';
import type { EventType } from '../../models/event';
import { Signature, type AuditEntryInput, type SignatureRecord } from '../../models/signature';
import { changeWithAudit } from './change-with-audit';
import { declinedSignal, signatureWorkflowId, signedSignal, viewedSignal } from '../../workflows/signature.shared';
import { AppError, notFound } from '../../platform/errors';
import { signatureErrors } from './errors';
import { signalWorkflow } from '../../platform/temporal/client';
import type { SignalDefinition } from '@temporalio/common';

export type Signer = SignatureRecord['signers'][number];

/** Where an act came from, for the audit entry. */
export interface SignerClient {
  ip: string | null;
  userAgent: string | null;
}

/** One signer's act: its audit entry (the signer's identity and client are added), the signer's fields, and any request fields. */
interface SignerAct {
  entry: Pick<AuditEntryInput, 'type' | 'at' | 'detail'>;
  fields: Record<string, unknown>;
  request?: Record<string, unknown>;
}

/** The signer whose turn it is in an ordered request: the first who has not signed. */
const currentSigner = (sig: SignatureRecord) => [...sig.signers].sort((a, b) => a.order - b.order).find((x) => x.status !== 'signed');

export const yourTurn = (sig: SignatureRecord, signer: Signer) => !sig.ordered || currentSigner(sig)?._id.equals(signer._id) === true;

export function signerView(sig: SignatureRecord, signer: Signer) {
  return {
    signature_id: sig.id,
    status: sig.status,
    contract_title: sig.contract_title,
    document: sig.document,
    document_pages: sig.document_pages,
    document_hash: sig.document_hash,
    requested_by: { name: sig.requested_by_name },
    message: sig.message,
    expires_at: sig.expires_at,
    signer: { name: signer.name, email: signer.email, status: signer.status },
    your_turn: yourTurn(sig, signer),
  };
}

const GONE: Record<string, string> = {
  completed: 'This signature request is already completed',
  declined: 'This signature request was declined',
  expired: 'This signing link has expired',
  cancelled: 'This signature request was cancelled',
};

export const isExpired = (sig: SignatureRecord) =>
  sig.status === 'expired' || (sig.status === 'pending' && sig.expires_at.getTime() <= Date.now());

/** Why a signer's link can no longer act (410), or null when it can. */
export function goneReason(sig: SignatureRecord, signer: Signer): AppError | null {
  if (signer.status === 'signed') return signatureErrors.signing_link_used('This signing link was already used to sign');
  if (signer.status === 'declined') return signatureErrors.signing_link_used('This signing link was already used to decline');
  if (isExpired(sig)) return signatureErrors.signing_link_expired(GONE.expired!);
  if (sig.status !== 'pending') return signatureErrors.signature_request_closed(GONE[sig.status] ?? 'This signature request is closed');
  return null;
}

const signerIndex = (sig: SignatureRecord, hash: string) => sig.signers.findIndex((x) => x.token_hash === hash);

/** The request and signer a link belongs to, whatever their state; null for an unknown link. */
export async function findByToken(token: string): Promise<{ sig: SignatureRecord; signer: Signer } | null> {
  const hash = sha256Hex(token);
  const sig = await Signature.findOne({ 'signers.token_hash': hash });
  const signer = sig?.signers[signerIndex(sig, hash)];
  return sig && signer ? { sig, signer } : null;
}

/** The request and signer a link belongs to: 404 unknown, 410 when it can no longer act. */
async function openByToken(token: string) {
  const found = await findByToken(token);
  if (!found) throw notFound('Signing link');
  const gone = goneReason(found.sig, found.signer);
  if (gone) throw gone;
  return found;
}

const signerActor = (signer: Signer): Actor => ({ type: 'signer', id: String(signer._id), name: signer.name });

function emit(sig: SignatureRecord, type: EventType, signer: Signer, summary: string, data: Record<string, unknown>) {
  return recordEvent({
    organizationId: String(sig.organization_id),
    type,
    data: { signature_id: sig.id, contract_id: String(sig.contract_id), signer_name: signer.name, signer_email: signer.email, ...data },
    actor: signerActor(signer),
    resource: { type: 'signature', id: sig.id },
    summary,
  });
}

/** Tells the workflow; the act is already stored, so a failed signal is only logged (the workflow re-reads on its timer). */
async function tell(s: Engines, sig: SignatureRecord, signal: SignalDefinition<[{ signerId: string }]>, signer: Signer) {
  try {
    await signalWorkflow(s, signatureWorkflowId(sig.id), signal, { signerId: String(signer._id) });
  } catch (err) {
    s.logger.warn({ err, signatureId: sig.id }, 'could not signal the signature workflow; it catches up from the store');
  }
}

/**
 * Records a signer's act on the still-open request: the signer's fields at their index
 * and the audit entry, in one write that fails over to a re-read if anything changed.
 */
async function act(token: string, client: SignerClient, decide: (sig: SignatureRecord, signer: Signer) => SignerAct | null) {
  const hash = sha256Hex(token);
  const open = { status: 'pending', expires_at: trusted({ $gt: new Date() }) };
  const done = await changeWithAudit((await openByToken(token)).sig._id, open, (sig) => {
    const i = signerIndex(sig, hash);
    const signer = sig.signers[i];
    if (!signer || goneReason(sig, signer)) return null;
    const d = decide(sig, signer);
    if (!d) return null;
    return {
      entry: {
        ...d.entry,
        signer_id: String(signer._id),
        name: signer.name,
        email: signer.email,
        ip: client.ip,
        user_agent: client.userAgent,
      },
      set: () => ({ ...d.request, ...Object.fromEntries(Object.entries(d.fields).map(([k, v]) => [`signers.${i}.${k}`, v])) }),
    };
  });
  if (done) return { sig: done.sig, signer: done.sig.signers[signerIndex(done.sig, hash)]!, changed: true };
  // Nothing written: someone else closed it meanwhile (410), or there was nothing to do.
  return { ...(await openByToken(token)), changed: false };
}

/**
 * The signer opens the document: marked viewed once. 404 unknown link, 410 closed. With
 * `markViewed` false (a HEAD or a prefetch, which no person asked for) nothing is recorded.
 */
export async function viewAsSigner(s: Engines, token: string, client: SignerClient, markViewed = true) {
  if (!markViewed) return { ...(await openByToken(token)), changed: false };
  const now = new Date();
  const r = await act(token, client, (_sig, signer) =>
    signer.status === 'pending' ? { entry: { type: 'viewed', at: now.toISOString() }, fields: { status: 'viewed', viewed_at: now } } : null,
  );
  if (r.changed) {
    await emit(r.sig, 'signature.viewed', r.signer, `${r.signer.name} viewed "${r.sig.contract_title}"`, {});
    await tell(s, r.sig, viewedSignal, r.signer);
  }
  return r;
}

/** A typed signature. 409 while an earlier signer of an ordered request has not signed. */
export async function signAsSigner(s: Engines, token: string, client: SignerClient, signatureText: string) {
  const now = new Date();
  let notYourTurn = false;
  const r = await act(token, client, (sig, signer) => {
    notYourTurn = !yourTurn(sig, signer);
    if (notYourTurn) return null;
    return {
      entry: { type: 'signed', at: now.toISOString(), detail: signatureText },
      fields: {
        status: 'signed',
        signed_at: now,
        signature_text: signatureText,
        ip: client.ip,
        user_agent: client.userAgent,
        ...(signer.viewed_at ? {} : { viewed_at: now }),
      },
    };
  });
  if (!r.changed)
    throw notYourTurn
      ? signatureErrors.signer_not_next('It is not your turn yet: an earlier signer has not signed')
      : signatureErrors.signing_link_used('This signing link was already used to sign');
  await emit(r.sig, 'signature.completed', r.signer, `${r.signer.name} signed "${r.sig.contract_title}"`, { signed_at: now.toISOString() });
  await tell(s, r.sig, signedSignal, r.signer);
  return r;
}

/** A refusal with its reason; one refusal ends the whole request. */
export async function declineAsSigner(s: Engines, token: string, client: SignerClient, reason: string) {
  const now = new Date();
  const r = await act(token, client, () => ({
    entry: { type: 'declined', at: now.toISOString(), detail: reason },
    fields: { status: 'declined', declined_at: now, decline_reason: reason, ip: client.ip, user_agent: client.userAgent },
    request: { status: 'declined' },
  }));
  if (!r.changed) throw goneReason(r.sig, r.signer) ?? signatureErrors.signature_request_closed('This signing link can no longer be used');
  await emit(r.sig, 'signature.declined', r.signer, `${r.signer.name} declined "${r.sig.contract_title}"`, { reason });
  await tell(s, r.sig, declinedSignal, r.signer);
  return r;
}
