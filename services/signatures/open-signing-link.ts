/**
 * What a link of the signing page shows: the form while its signer may still sign (opening
 * it marks them as having viewed the document), else the state of the link; a copy link
 * from the completion mail (./signed-copy-link.ts) shows the sealed PDF's download.
 */
import type { Engines } from '../../platform/engines';
import { Signature, type SignatureRecord } from '../../models/signature';
import { findByToken, isExpired, viewAsSigner, yourTurn, type Signer, type SignerClient } from './record-signer-act';
import type { Config } from '../../platform/config';
import { copyWindowEnd, readCopyToken } from './signed-copy-link';
import { hasSealedPdf } from './signed-pdf-store';

/**
 * The state of a link that cannot act; `sealed` once the sealed PDF can be downloaded,
 * `copyEnded` once its download through the signers' links has ended (SIGNED_COPY_DAYS).
 */
export type LinkState =
  | { kind: 'signed'; at: Date; completed: boolean; sealed: boolean; copyEnded: Date | null }
  | { kind: 'declined'; at: Date | null; reason: string | null; byYou: boolean }
  | { kind: 'expired'; at: Date }
  | { kind: 'cancelled' }
  | { kind: 'waiting'; before: number }
  | { kind: 'copy'; sealed: boolean; until: Date };

export type SigningLinkPage =
  | { kind: 'unknown'; download: boolean }
  | { kind: 'expired-download' }
  | { kind: 'state'; sig: SignatureRecord; state: LinkState }
  | { kind: 'form'; sig: SignatureRecord; signer: Signer };

/** When the sealed PDF stopped downloading through the signers' links; null while it still does. */
function copyEnded(config: Pick<Config, 'SIGNED_COPY_DAYS'>, sig: SignatureRecord): Date | null {
  const end = sig.completed_at && copyWindowEnd(config, sig.completed_at);
  return end && end.getTime() <= Date.now() ? end : null;
}

/** What the link shows when it cannot act: null while the signer may still sign. */
function linkState(sig: SignatureRecord, signer: Signer, sealed: boolean, ended: Date | null): LinkState | null {
  if (signer.status === 'signed')
    return { kind: 'signed', at: signer.signed_at!, completed: sig.status === 'completed', sealed: sealed && !ended, copyEnded: ended };
  if (signer.status === 'declined')
    return { kind: 'declined', at: signer.declined_at ?? null, reason: signer.decline_reason ?? null, byYou: true };
  if (sig.status === 'declined') return { kind: 'declined', at: null, reason: null, byYou: false };
  if (sig.status === 'cancelled') return { kind: 'cancelled' };
  if (isExpired(sig)) return { kind: 'expired', at: sig.expires_at };
  if (!yourTurn(sig, signer))
    return { kind: 'waiting', before: sig.signers.filter((x) => x.order < signer.order && x.status !== 'signed').length };
  return null;
}

/** The link's page; `markViewed` false for a request no person made (a HEAD, a prefetch). */
export async function openSigningLink(s: Engines, token: string, client: SignerClient, markViewed = true): Promise<SigningLinkPage> {
  const copy = readCopyToken(s.config, token);
  if (copy === 'expired') return { kind: 'expired-download' };
  if (copy) {
    const sig = await Signature.findOne({ _id: copy.signatureId, 'signers._id': copy.signerId });
    if (!sig) return { kind: 'unknown', download: true };
    if (copyEnded(s.config, sig)) return { kind: 'expired-download' };
    return { kind: 'state', sig, state: { kind: 'copy', sealed: await hasSealedPdf(sig.id), until: copy.until } };
  }
  const found = await findByToken(token);
  if (!found) return { kind: 'unknown', download: false };
  const state = linkState(found.sig, found.signer, await hasSealedPdf(found.sig.id), copyEnded(s.config, found.sig));
  if (state) return { kind: 'state', sig: found.sig, state };
  const viewed = await viewAsSigner(s, token, client, markViewed);
  return { kind: 'form', sig: viewed.sig, signer: found.signer };
}
