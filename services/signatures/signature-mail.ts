/**
 * Mail about signature requests. Signers get their link when it is their turn: every signer
 * of a parallel request at once, in an ordered request the first, and each next one when
 * the previous has signed (the relay's `signature.requested` and per-signer
 * `signature.completed` events, `signatureMailConsumer` below). Reminders come from the signature
 * workflow; declined and expired notices go to the requester, the completion notice to the
 * requester and every signer. Dedupe keys make every one of them idempotent.
 */
import { trusted, type Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { decryptSecret } from '../../platform/security/crypto';
import { Signature, type SignatureRecord } from '../../models/signature';
import { User } from '../../models/user';
import { OutgoingMail } from '../../models/outgoing-mail';
import type { EventConsumer } from '../../platform/outbox/relay';
import { queueMail } from '../mail/queue';
import type { RenderedMail } from '../mail/messages';
import { copyToken } from './signed-copy-link';
import {
  signatureCompletedMail,
  signatureDeclinedMail,
  signatureExpiredMail,
  signatureReminderMail,
  signatureRequestMail,
  type SignerMailValues,
} from './signature-messages';

type Signer = SignatureRecord['signers'][number];

/** Signers whose turn it is: in an ordered request the first who has not signed, else everyone still to sign. */
export function signersDue(sig: SignatureRecord): Signer[] {
  if (sig.status !== 'pending') return [];
  const waiting = (x: Signer) => x.status === 'pending' || x.status === 'viewed';
  if (!sig.ordered) return sig.signers.filter(waiting);
  const next = [...sig.signers].sort((a, b) => a.order - b.order).find((x) => x.status !== 'signed');
  return next && waiting(next) ? [next] : [];
}

function signerValues(s: Engines, sig: SignatureRecord, signer: Signer): SignerMailValues | null {
  // Null for a link that can no longer act (its sealed token is cleared then).
  if (!signer.token_sealed) return null;
  return {
    requesterName: sig.requested_by_name ?? 'Your counterparty',
    contractTitle: sig.contract_title,
    message: sig.message ?? null,
    expiresAt: sig.expires_at,
    token: decryptSecret(s.config, signer.token_sealed),
    signerName: signer.name,
    signedBefore: sig.ordered ? sig.signers.filter((x) => x.status === 'signed').length : 0,
  };
}

type SignerMailKind = 'signature_request' | 'signature_reminder';

/** The dedupe key of a mail to one signer; `round` tells a reminder round's apart. */
const signerMailKey = (kind: SignerMailKind, sig: SignatureRecord, signer: Signer, round: string) =>
  `${kind.replace('_', '-')}:${sig.id}:${String(signer._id)}${round ? `:${round}` : ''}`;

/** A mail to each signer whose link still acts; `round` tells a reminder round's apart. */
async function mailSigners(
  s: Engines,
  sig: SignatureRecord,
  signers: Signer[],
  kind: SignerMailKind,
  render: (base: string, values: SignerMailValues) => RenderedMail,
  round = '',
) {
  for (const signer of signers) {
    const values = signerValues(s, sig, signer);
    if (!values) continue;
    await queueMail(s, {
      organizationId: sig.organization_id,
      kind,
      to: signer.email,
      dedupeKey: signerMailKey(kind, sig, signer, round),
      ref: { signature_id: sig.id, signer_id: String(signer._id) },
      message: render(s.config.publicBaseUrl, values),
    });
  }
}

/** Each due signer's request (with their link), once per signer. */
export const mailSignersDue = (s: Engines, sig: SignatureRecord) =>
  mailSigners(s, sig, signersDue(sig), 'signature_request', signatureRequestMail);

/** One reminder round (`round` names it, so a retried activity queues nothing twice). */
export const mailSignatureReminders = (s: Engines, sig: SignatureRecord, signers: Signer[], round: string) =>
  mailSigners(s, sig, signers, 'signature_reminder', signatureReminderMail, round);

/** True when the round `round` has queued its reminders already (a retried activity): it took its quota then. */
export async function reminderRoundQueued(sig: SignatureRecord, signers: Signer[], round: string): Promise<boolean> {
  const keys = signers.map((x) => signerMailKey('signature_reminder', sig, x, round));
  return !!(await OutgoingMail.exists({ dedupe_key: trusted({ $in: keys }) }));
}

async function requesterEmail(sig: SignatureRecord): Promise<string | null> {
  if (!sig.requested_by) return null;
  const user = await User.findOne({ _id: sig.requested_by, organization_id: sig.organization_id }, { email: 1 }).lean();
  return user?.email ?? null;
}

/** A notice to whoever sent the request, once per request and kind (none when they are gone). */
async function mailRequester(
  s: Engines,
  sig: SignatureRecord,
  kind: 'signature_declined' | 'signature_expired',
  message: RenderedMail,
): Promise<void> {
  const to = await requesterEmail(sig);
  if (!to) return;
  await queueMail(s, {
    organizationId: sig.organization_id,
    kind,
    to,
    dedupeKey: `${kind.replace('_', '-')}:${sig.id}`,
    ref: { signature_id: sig.id },
    message,
  });
}

export const mailSignatureDeclined = (s: Engines, sig: SignatureRecord, by: { name: string; email: string; reason: string | null }) =>
  mailRequester(
    s,
    sig,
    'signature_declined',
    signatureDeclinedMail(s.config.publicBaseUrl, {
      signatureId: sig.id,
      contractTitle: sig.contract_title,
      signerName: by.name,
      signerEmail: by.email,
      reason: by.reason,
    }),
  );

export const mailSignatureExpired = (s: Engines, sig: SignatureRecord) =>
  mailRequester(
    s,
    sig,
    'signature_expired',
    signatureExpiredMail(s.config.publicBaseUrl, {
      signatureId: sig.id,
      contractTitle: sig.contract_title,
      expiresAt: sig.expires_at,
      signed: sig.signers.filter((x) => x.status === 'signed').length,
      total: sig.signers.length,
    }),
  );

/** The completion notice with the certificate: to the requester and to every signer. */
export async function mailSignatureCompleted(s: Engines, sig: SignatureRecord): Promise<void> {
  if (sig.status !== 'completed' || !sig.completed_at) return;
  const values = {
    signatureId: sig.id,
    contractTitle: sig.contract_title,
    signers: sig.signers.map((x) => ({ name: x.name, signedAt: x.signed_at ?? sig.completed_at! })),
    completedAt: sig.completed_at,
    certificate: JSON.stringify(sig.certificate, null, 2),
  };
  const requester = await requesterEmail(sig);
  const recipients = [
    ...(requester ? [{ to: requester, key: 'requester', copyToken: null }] : []),
    // A requester who also signed gets the requester's copy only.
    ...sig.signers
      .filter((x) => x.email !== requester)
      .map((x) => ({ to: x.email, key: String(x._id), copyToken: copyToken(s.config, sig.id, String(x._id), sig.completed_at!) })),
  ];
  for (const r of recipients) {
    await queueMail(s, {
      organizationId: sig.organization_id,
      kind: 'signature_completed',
      to: r.to,
      dedupeKey: `signature-completed:${sig.id}:${r.key}`,
      ref: { signature_id: sig.id },
      message: signatureCompletedMail(s.config.publicBaseUrl, { ...values, copyToken: r.copyToken, copyDays: s.config.SIGNED_COPY_DAYS }),
    });
  }
}

const findSignature = (organizationId: Types.ObjectId, id: string) => Signature.findOne({ _id: id, organization_id: organizationId });

/** The signature events that mail someone, as a consumer of the event relay (platform/outbox/relay.ts); idempotent by the dedupe keys. */
export const signatureMailConsumer: EventConsumer = {
  name: 'signature-mail',
  async consume(s, event) {
    if (!event.type.startsWith('signature.') || event.resource_type !== 'signature') return;
    const sig = await findSignature(event.organization_id, event.resource_id);
    if (!sig) return;
    const data = event.data as { signer_name?: string; signer_email?: string; reason?: string };
    switch (event.type) {
      // The request went out, or a signer signed (signature.completed is per signer): whoever's turn it is now.
      case 'signature.requested':
      case 'signature.completed':
        return mailSignersDue(s, sig);
      case 'signature.declined':
        return mailSignatureDeclined(s, sig, {
          name: data.signer_name ?? 'A signer',
          email: data.signer_email ?? '',
          reason: data.reason ?? null,
        });
      case 'signature.expired':
        return mailSignatureExpired(s, sig);
      default:
        return;
    }
  },
};
