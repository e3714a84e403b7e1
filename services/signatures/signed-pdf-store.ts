/**
 * The signed PDF's two durable steps, each an activity with retries, and its downloads.
 * Render stores the unsealed file under the request's id; seal signs that stored file and
 * replaces it. A worker killed between or inside the steps leaves at most a `rendered`
 * record, which the retry renders over or seals; the id admits one file per request.
 */
import { PDFDocument } from 'pdf-lib';
import type { Engines } from '../../platform/engines';
import type { Config } from '../../platform/config';
import { sha256Hex } from '../../platform/security/crypto';
import type { Certificate } from './signature-evidence';
import { Signature, auditOf, type SignatureRecord } from '../../models/signature';
import { SignedPdf } from '../../models/signed-pdf';
import { appendEvidencePages, renderDocumentPdf } from './signed-pdf-pages';
import { getSealIdentity, sealPdf } from './seal-pdf';
import { findByToken, goneReason } from './record-signer-act';
import { MAX_SIGNED_PDF_BYTES, PdfOfRecordChangedError, readPdfOfRecord } from './pdf-of-record';
import { isDuplicateKey } from '../../platform/mongo';
import { signatureErrors } from './errors';
import { copyWindowEnd } from './signed-copy-link';

const filenameOf = (sig: SignatureRecord, suffix: string) =>
  `${
    sig.contract_title
      .replace(/[^A-Za-z0-9._ -]+/g, '')
      .trim()
      .slice(0, 80) || 'document'
  }${suffix}.pdf`;

/** Lean reads give BSON Binary for Buffer fields. */
const bytesOf = (b: unknown): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from((b as { buffer: Uint8Array }).buffer));

export async function sealedPdfOf(signatureId: string) {
  const doc = await SignedPdf.findOne({ _id: signatureId, state: 'sealed' }).lean();
  return doc && { ...doc, bytes: bytesOf(doc.bytes) };
}

/** The sealed PDF of a request, for its members; 409 until it is sealed, with why. */
export async function signedPdfFor(sig: SignatureRecord) {
  const pdf = await sealedPdfOf(sig.id);
  if (pdf) return pdf;
  throw signatureErrors.signed_pdf_not_ready(
    sig.sealing_error
      ? `The signed PDF could not be sealed: ${sig.sealing_error}`
      : `The signed PDF is not sealed yet (the request is ${sig.status})`,
  );
}

export const hasSealedPdf = async (signatureId: string) => (await SignedPdf.exists({ _id: signatureId, state: 'sealed' })) !== null;

/** The unsigned document as a signer downloads it before everyone has signed: the PDF of record, or the text rendered. */
async function unsignedPdf(sig: SignatureRecord): Promise<Buffer> {
  return (await readPdfOfRecord(sig)) ?? Buffer.from(await (await renderDocumentPdf(sig.contract_title, sig.document)).save());
}

/** The first pages of the signed PDF: the PDF of record as frozen, or the contract text. */
async function basePdf(sig: SignatureRecord): Promise<PDFDocument> {
  const record = await readPdfOfRecord(sig);
  return record ? PDFDocument.load(record) : renderDocumentPdf(sig.contract_title, sig.document);
}

/** The signed PDF would not fit in a store record: the same request would be too large on every try. */
export class SignedPdfTooLargeError extends Error {}

/**
 * Render step: the document and evidence pages, stored unsealed; nothing once sealed. A PDF of
 * record changed since the send (PdfOfRecordChangedError) or a PDF too large cannot be mended by a retry.
 */
export async function renderSignedPdf(signatureId: string): Promise<'rendered' | 'sealed' | 'not-completed'> {
  const sig = await Signature.findOne({ _id: signatureId, status: 'completed' });
  if (!sig) return 'not-completed';
  if (await hasSealedPdf(signatureId)) return 'sealed';
  const pdf = await basePdf(sig);
  await appendEvidencePages(pdf, {
    signatureId,
    title: sig.contract_title,
    documentHash: sig.document_hash,
    keyId: (sig.certificate as Certificate | null)?.key_id ?? null,
    completedAt: sig.completed_at ?? null,
    signers: sig.signers.map((x) => ({
      name: x.name,
      email: x.email,
      signatureText: x.signature_text ?? null,
      signedAt: x.signed_at ?? null,
      ip: x.ip ?? null,
      userAgent: x.user_agent ?? null,
    })),
    trail: auditOf(sig),
  });
  const bytes = Buffer.from(await pdf.save({ useObjectStreams: false }));
  if (bytes.length > MAX_SIGNED_PDF_BYTES)
    throw new SignedPdfTooLargeError(`the signed PDF is ${bytes.length} bytes, above the ${MAX_SIGNED_PDF_BYTES} a record holds`);
  try {
    await SignedPdf.updateOne(
      { _id: sig._id, state: 'rendered' },
      {
        $set: { organization_id: sig.organization_id, bytes, sha256: sha256Hex(bytes), size_bytes: bytes.length, rendered_at: new Date() },
      },
      { upsert: true },
    );
  } catch (err) {
    // The upsert met the sealed record (sealed meanwhile): the one file stands.
    if (isDuplicateKey(err)) return 'sealed';
    throw err;
  }
  return 'rendered';
}

/** Seal step: signs the rendered file in place, then marks the request sealed. */
export async function sealSignedPdf(s: Engines, signatureId: string): Promise<{ sealed_at: Date; size_bytes: number; ms: number }> {
  const started = Date.now();
  let stored = await SignedPdf.findById(signatureId).lean();
  if (!stored) throw new Error(`signature request ${signatureId}: nothing rendered to seal`);
  if (stored.state === 'rendered') {
    const identity = await getSealIdentity(s);
    const sealedAt = new Date();
    const bytes = await sealPdf(await PDFDocument.load(bytesOf(stored.bytes)), identity, {
      reason: `Signed by every signer of signature request ${signatureId}`,
      signingTime: sealedAt,
    });
    await SignedPdf.updateOne(
      { _id: signatureId, state: 'rendered', rendered_at: stored.rendered_at },
      {
        $set: {
          state: 'sealed',
          bytes,
          sha256: sha256Hex(bytes),
          size_bytes: bytes.length,
          sealed_at: sealedAt,
          seal_certificate: identity.fingerprint,
        },
      },
    );
    stored = await SignedPdf.findById(signatureId).lean();
    if (stored?.state !== 'sealed') throw new Error(`signature request ${signatureId}: the rendered file changed while sealing`);
  }
  await Signature.updateOne(
    { _id: signatureId },
    { $set: { sealed_at: stored.sealed_at, pdf_sha256: stored.sha256, sealing_error: null } },
  );
  return { sealed_at: stored.sealed_at!, size_bytes: stored.size_bytes, ms: Date.now() - started };
}

export async function recordSealingError(signatureId: string, error: string): Promise<void> {
  await Signature.updateOne({ _id: signatureId, sealed_at: null }, { $set: { sealing_error: error.slice(0, 500) } });
}

export interface PdfDownload {
  bytes: Buffer;
  filename: string;
}

/**
 * What `/sign/<token>/document.pdf` serves: for a copy link the sealed PDF; for a signing
 * link the sealed PDF once there is one, else the document to sign while the link is open
 * or its signer has signed. 'gone' for a closed link, 'expired' once the request has been
 * completed for SIGNED_COPY_DAYS (./signed-copy-link.ts), null for an unknown link.
 */
export async function signingPdf(
  config: Pick<Config, 'SIGNED_COPY_DAYS'>,
  token: string,
  copy: { signatureId: string; signerId: string } | 'expired' | null,
): Promise<PdfDownload | 'gone' | 'expired' | null> {
  if (copy === 'expired') return 'expired';
  const found = copy
    ? await Signature.findOne({ _id: copy.signatureId, 'signers._id': copy.signerId }).then((sig) => sig && { sig })
    : await findByToken(token);
  if (!found) return null;
  const { sig } = found;
  if (sig.completed_at && copyWindowEnd(config, sig.completed_at).getTime() <= Date.now()) return 'expired';
  const sealed = await sealedPdfOf(sig.id);
  if (sealed) return { bytes: sealed.bytes, filename: filenameOf(sig, ' (signed)') };
  if (copy || !('signer' in found)) return null;
  if (found.signer.status !== 'signed' && goneReason(sig, found.signer)) return 'gone';
  try {
    return { bytes: await unsignedPdf(sig), filename: filenameOf(sig, '') };
  } catch (err) {
    if (err instanceof PdfOfRecordChangedError) return 'gone';
    throw err;
  }
}
