/**
 * A contract's PDF of record (`document_id`): a signature request freezes that file's
 * SHA-256 when it is sent, and sealing appends the signature and audit pages to exactly that
 * file. A file that changed or went away since is refused, never sealed.
 */
import { readFile } from 'node:fs/promises';
import type { Types } from 'mongoose';
import { sha256Hex } from '../../platform/security/crypto';
import { Document } from '../../models/document';
import type { SignatureRecord } from '../../models/signature';
import { badRequest } from '../../platform/errors';

export class PdfOfRecordChangedError extends Error {}

/** A signed PDF must fit in one store record (16 MB) with room to spare. */
export const MAX_SIGNED_PDF_BYTES = 15 * 1024 * 1024;
/** What the signature and audit pages may add to a PDF of record (a long trail stays far below). */
const EVIDENCE_PAGES_BYTES = 1024 * 1024;
const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function bytesOf(organizationId: Types.ObjectId, documentId: Types.ObjectId): Promise<Buffer | null> {
  const doc = await Document.findOne({ _id: documentId, organization_id: organizationId }, { storage_path: 1 }).lean();
  return doc ? readFile(doc.storage_path).catch(() => null) : null;
}

/** The fields a new request records for a contract with a PDF of record (none without one). */
export async function freezePdfOfRecord(contract: { organization_id: Types.ObjectId; document_id?: Types.ObjectId | null }) {
  if (!contract.document_id) return {};
  const bytes = await bytesOf(contract.organization_id, contract.document_id);
  if (!bytes) throw badRequest("contract_id: the contract's PDF of record (document_id) no longer exists");
  // Refused now rather than failing at sealing after everyone has signed.
  if (bytes.length > MAX_SIGNED_PDF_BYTES - EVIDENCE_PAGES_BYTES)
    throw badRequest(
      `contract_id: the contract's PDF of record is ${megabytes(bytes.length)}; with its signature and audit pages a signed PDF must stay within ${megabytes(MAX_SIGNED_PDF_BYTES)}`,
    );
  return { record_document_id: contract.document_id, record_pdf_sha256: sha256Hex(bytes) };
}

/** The request's PDF of record as frozen, or null when it has none. */
export async function readPdfOfRecord(sig: SignatureRecord): Promise<Buffer | null> {
  if (!sig.record_document_id) return null;
  const bytes = await bytesOf(sig.organization_id, sig.record_document_id);
  if (!bytes || sha256Hex(bytes) !== sig.record_pdf_sha256)
    throw new PdfOfRecordChangedError('the PDF of record was changed or removed after the request was sent');
  return bytes;
}
