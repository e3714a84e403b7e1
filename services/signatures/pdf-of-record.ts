/**
 * The document a signature request signs, frozen when it is sent: the contract's PDF of
 * record (`document_id`) when it names one, else its `content`. A PDF's bytes are copied
 * (models/frozen-pdf.ts) and its text read page by page for the signing page; the request's
 * `document_hash` is the SHA-256 of the frozen bytes (the PDF, or the content's UTF-8). The
 * page, the signer's download, the sealed PDF, the certificate and `/verify` all use that one
 * frozen document, whatever happens to the contract or the uploaded file afterwards.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { sha256Hex } from '../../platform/security/crypto';
import { badRequest } from '../../platform/errors';
import { isDuplicateKey } from '../../platform/mongo';
import { Document } from '../../models/document';
import { FrozenPdf, frozenPdfId } from '../../models/frozen-pdf';
import type { SignatureRecord } from '../../models/signature';
import { extractTextInChild } from '../documents/extract-text-in-child';
import { ExtractionLimitError, MIME, UnreadableDocumentError } from '../documents/document-files';
import { sha256 } from './signature-evidence';

export class PdfOfRecordChangedError extends Error {}

/** A signed PDF must fit in one store record (16 MB) with room to spare. */
export const MAX_SIGNED_PDF_BYTES = 15 * 1024 * 1024;
/** What the signature and audit pages may add to a PDF of record (a long trail stays far below). */
const EVIDENCE_PAGES_BYTES = 1024 * 1024;
/** The text of a PDF of record the request keeps for the signing page: about 500 printed pages. */
export const MAX_SHOWN_TEXT_CHARS = 1_000_000;
const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function uploadedBytes(organizationId: Types.ObjectId, documentId: Types.ObjectId): Promise<Buffer | null> {
  const doc = await Document.findOne({ _id: documentId, organization_id: organizationId }, { storage_path: 1 }).lean();
  return doc ? readFile(doc.storage_path).catch(() => null) : null;
}

/**
 * The text of each page of `bytes`, read in a child process like any untrusted upload; none
 * for a PDF without text (a scan: the signer reads the download).
 */
async function pageTexts(s: Engines, bytes: Buffer): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-of-record-'));
  try {
    const file = path.join(dir, 'record.pdf');
    await writeFile(file, bytes);
    const limits = { ...s.config, EXTRACT_MAX_TEXT_CHARS: Math.min(s.config.EXTRACT_MAX_TEXT_CHARS, MAX_SHOWN_TEXT_CHARS) };
    const pages: string[] = [];
    for await (const { page, text } of extractTextInChild(file, MIME.pdf, limits)) pages[page - 1] = (pages[page - 1] ?? '') + text;
    return Array.from(pages, (p) => p ?? '');
  } catch (err) {
    if (err instanceof UnreadableDocumentError) return [];
    if (err instanceof ExtractionLimitError)
      throw badRequest(`contract_id: the contract's PDF of record cannot be shown to signers: ${err.message}`);
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface FrozenDocument {
  /** The content as sent; empty when a PDF of record is the document. */
  document: string;
  /** The PDF of record's text, one entry per page; empty for content. */
  document_pages: string[];
  /** SHA-256 of the frozen bytes. */
  document_hash: string;
  record_document_id: Types.ObjectId | null;
  record_pdf_sha256: string | null;
}

/** Freezes what a new request signs; a PDF of record that is gone or too large to seal is refused (400). */
export async function freezeDocument(
  s: Engines,
  contract: { organization_id: Types.ObjectId; content: string; document_id?: Types.ObjectId | null },
): Promise<FrozenDocument> {
  if (!contract.document_id)
    return {
      document: contract.content,
      document_pages: [],
      document_hash: sha256(contract.content),
      record_document_id: null,
      record_pdf_sha256: null,
    };
  const bytes = await uploadedBytes(contract.organization_id, contract.document_id);
  if (!bytes) throw badRequest("contract_id: the contract's PDF of record (document_id) no longer exists");
  // Refused now rather than failing at sealing after everyone has signed.
  if (bytes.length > MAX_SIGNED_PDF_BYTES - EVIDENCE_PAGES_BYTES)
    throw badRequest(
      `contract_id: the contract's PDF of record is ${megabytes(bytes.length)}; with its signature and audit pages a signed PDF must stay within ${megabytes(MAX_SIGNED_PDF_BYTES)}`,
    );
  const pages = await pageTexts(s, bytes);
  const hash = sha256Hex(bytes);
  // Content-addressed and written once: a second request of the same file finds it there
  // (and one racing this one may have written it first).
  await FrozenPdf.updateOne(
    { _id: frozenPdfId(String(contract.organization_id), hash) },
    {
      $setOnInsert: { organization_id: contract.organization_id, sha256: hash, bytes, size_bytes: bytes.length, frozen_at: new Date() },
    },
    { upsert: true },
  ).catch((err: unknown) => {
    if (!isDuplicateKey(err)) throw err;
  });
  return { document: '', document_pages: pages, document_hash: hash, record_document_id: contract.document_id, record_pdf_sha256: hash };
}

/**
 * The request's PDF of record as frozen, or null when it has none. A request sent before
 * copies were frozen reads the uploaded file, checked against the hash it froze.
 */
export async function readPdfOfRecord(sig: SignatureRecord): Promise<Buffer | null> {
  if (!sig.record_document_id || !sig.record_pdf_sha256) return null;
  // Hydrated, not lean: the bytes come back as a Buffer rather than BSON Binary.
  const frozen = await FrozenPdf.findById(frozenPdfId(String(sig.organization_id), sig.record_pdf_sha256));
  const bytes = frozen ? Buffer.from(frozen.bytes) : await uploadedBytes(sig.organization_id, sig.record_document_id);
  if (!bytes || sha256Hex(bytes) !== sig.record_pdf_sha256)
    throw new PdfOfRecordChangedError('the PDF of record was changed or removed after the request was sent');
  return bytes;
}
