/** The seal part of `GET /signatures/:id/verify`: the stored PDF's signature checked again, by the service's certificate, over the whole file. */
import type { Engines } from '../../platform/engines';
import type { SignatureRecord } from '../../models/signature';
import { checkSeal, getSealIdentity } from './seal-pdf';
import { sealedPdfOf } from './signed-pdf-store';

export async function sealReport(s: Engines, sig: SignatureRecord) {
  const none = { valid: false, covers_whole_document: false, sealed_at: null, signed_by: null, service_certificate: false };
  const pdf = await sealedPdfOf(sig.id);
  if (!pdf) {
    if (sig.sealing_error) return { status: 'failed' as const, ...none, reason: sig.sealing_error };
    return sig.status === 'completed' ? { status: 'pending' as const, ...none } : { status: 'none' as const, ...none };
  }
  const check = checkSeal(pdf.bytes, await getSealIdentity(s));
  const valid = check.valid && check.service_certificate && pdf.sha256 === sig.pdf_sha256;
  return {
    status: 'sealed' as const,
    ...check,
    valid,
    sealed_at: pdf.sealed_at ?? null,
    ...(check.valid && !valid ? { reason: 'the PDF is not the one the service sealed' } : {}),
  };
}
