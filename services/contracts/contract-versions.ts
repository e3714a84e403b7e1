/**
 * Contract versions: every change of a contract's text of record (`content`, or the PDF of
 * record `document_id`) is kept as an immutable, numbered version with its author, note and
 * SHA-256, which approvals bind to. A new version supersedes the contract's open approval
 * requests. Restoring an old version makes a new one with its text.
 */
import { readFile } from 'node:fs/promises';
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { isDuplicateKey } from '../../platform/mongo';
import { notFound } from '../../platform/errors';
import { sha256Hex } from '../../platform/security/crypto';
import type { ContractDoc } from '../../models/contract';
import { ContractVersion, type ContractVersionDoc } from '../../models/contract-version';
import { Document } from '../../models/document';
import { extractTextInChild } from '../documents/extract-text-in-child';
import type { SupportedMime } from '../documents/document-files';
import { supersedeOpenApprovals } from './supersede-approvals';
import type { KeyTerms } from './key-terms.shared';

/** Concurrent edits race for the next number; the unique index lets one win and the other take the next. */
const NUMBER_ATTEMPTS = 8;

export interface VersionAuthor {
  id: string | null;
  name: string;
}

export const authorOf = (p: Principal): VersionAuthor => ({ id: p.userId, name: p.name });

/** The SHA-256 a signature request would freeze: the PDF of record's bytes, else the content's UTF-8. */
async function hashOfRecord(contract: ContractDoc): Promise<string> {
  if (!contract.document_id) return sha256Hex(Buffer.from(contract.content ?? '', 'utf8'));
  const doc = await Document.findOne({ _id: contract.document_id, organization_id: contract.organization_id }, { storage_path: 1 }).lean();
  const bytes = doc && (await readFile(doc.storage_path).catch(() => null));
  // A file gone from storage still gets a version; no request can be sealed from it.
  return bytes ? sha256Hex(bytes) : sha256Hex(`missing-document:${contract.document_id.toHexString()}`);
}

/** Records the contract's current text of record as its next version, and supersedes open approvals of older ones. */
export async function recordContractVersion(
  contract: ContractDoc,
  author: VersionAuthor,
  opts: { note?: string | null; restoredFrom?: number } = {},
): Promise<ContractVersionDoc> {
  const sha256 = await hashOfRecord(contract);
  for (let attempt = 1; ; attempt++) {
    const last = await ContractVersion.findOne({ contract_id: contract._id }, { number: 1 }).sort({ number: -1 }).lean();
    try {
      const version = await ContractVersion.create({
        organization_id: contract.organization_id,
        contract_id: contract._id,
        number: (last?.number ?? 0) + 1,
        author_id: author.id && Types.ObjectId.isValid(author.id) ? new Types.ObjectId(author.id) : null,
        author_name: author.name,
        note: opts.note ?? null,
        source: contract.document_id ? 'document' : 'content',
        content: contract.content ?? '',
        document_id: contract.document_id ?? null,
        sha256,
        restored_from: opts.restoredFrom ?? null,
      });
      await supersedeOpenApprovals(contract.organization_id, contract._id, version.sha256);
      return version;
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= NUMBER_ATTEMPTS) throw err;
    }
  }
}

/** The contract's latest version, or null for a contract from before versions existed. */
export const currentVersion = (contract: Pick<ContractDoc, '_id'>) =>
  ContractVersion.findOne({ contract_id: contract._id }).sort({ number: -1 });

/** The contract's current version; a contract from before versions gets its first one now. */
export async function currentOrFirstVersion(contract: ContractDoc, author: VersionAuthor): Promise<ContractVersionDoc> {
  return (await currentVersion(contract)) ?? (await recordContractVersion(contract, author));
}

export async function findVersion(contract: Pick<ContractDoc, '_id' | 'organization_id'>, number: number): Promise<ContractVersionDoc> {
  const v = await ContractVersion.findOne({ contract_id: contract._id, organization_id: contract.organization_id, number });
  if (!v) throw notFound('Version');
  return v;
}

export async function listVersions(contract: Pick<ContractDoc, '_id' | 'organization_id'>): Promise<ContractVersionDoc[]> {
  // The texts stay in the store: a list of many 500 KB versions would be megabytes.
  return ContractVersion.find({ contract_id: contract._id, organization_id: contract.organization_id })
    .select('-content -extracted_text')
    .sort({ number: -1 });
}

/**
 * The text the redline compares: the content, or the PDF's text (extracted once, in a child
 * process, then kept). The kept text stops at VERSION_TEXT_MAX_CHARS: a PDF's text can
 * outgrow the store's document limit, and a write that fails would extract again on every try.
 */
export async function textOfVersion(s: Engines, v: ContractVersionDoc): Promise<string> {
  if (v.source === 'content') return v.content ?? '';
  if (v.extracted_text !== null && v.extracted_text !== undefined) return v.extracted_text;
  const doc = await Document.findOne({ _id: v.document_id, organization_id: v.organization_id }).lean();
  const max = s.config.VERSION_TEXT_MAX_CHARS;
  let text = '';
  if (doc) {
    let page = 0;
    for await (const piece of extractTextInChild(doc.storage_path, doc.mime_type as SupportedMime, s.config)) {
      text += piece.page !== page && page ? `\n\n${piece.text}` : piece.text;
      page = piece.page;
      // Leaving the loop stops the child: the rest would be cut anyway.
      if (text.length > max) break;
    }
  }
  const truncated = text.length > max;
  // Never half a surrogate pair at the cut.
  if (truncated) text = text.slice(0, max).replace(/[\ud800-\udbff]$/, '');
  await ContractVersion.updateOne({ _id: v._id }, { $set: { extracted_text: text, extracted_text_truncated: truncated } });
  v.extracted_text = text;
  v.extracted_text_truncated = truncated;
  return text;
}

/** Whether the text the redline compares is cut (null while a PDF's text was never extracted). */
export const textTruncated = (v: ContractVersionDoc): boolean | null =>
  v.source === 'content' ? false : (v.extracted_text_truncated ?? null);

/** Keeps the terms an extraction found on the version whose text it read (the latest of that hash). */
export async function recordVersionTerms(contract: Pick<ContractDoc, '_id'>, terms: KeyTerms): Promise<void> {
  const latest = await currentVersion(contract);
  if (latest) await ContractVersion.updateOne({ _id: latest._id }, { $set: { terms, terms_extracted_at: new Date() } });
}

/** A version as the API shows it; `content` only when asked for one version. */
export function versionView(v: ContractVersionDoc, withContent = false) {
  return {
    id: v.id,
    contract_id: v.contract_id.toHexString(),
    number: v.number,
    author: { id: v.author_id?.toHexString() ?? null, name: v.author_name ?? null },
    created_at: v.created_at,
    version_note: v.note ?? null,
    source: v.source,
    document_id: v.document_id?.toHexString() ?? null,
    sha256: v.sha256,
    restored_from: v.restored_from ?? null,
    text_truncated: textTruncated(v),
    terms: (v.terms as KeyTerms | null) ?? null,
    terms_extracted_at: v.terms_extracted_at ?? null,
    ...(withContent ? { content: v.content ?? '' } : {}),
  };
}
