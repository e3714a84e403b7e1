/**
 * Versions as Word files: one version (the Word file it came from when there is one, else
 * built from its text), and the redline of two as a Word file with native tracked changes.
 */
import { access } from 'node:fs/promises';
import type { Engines } from '../../platform/engines';
import { writeDocx } from '../../platform/docx/write-docx';
import type { Principal } from '../../platform/security/principal';
import type { ContractVersionDoc } from '../../models/contract-version';
import { Document } from '../../models/document';
import { findVersion, textOfVersion } from './contract-versions';
import { getContract } from './get-contract';
import type { VersionDiff } from './diff-contract-versions';
import { redlineParagraphs, textParagraphs } from './word-text';

/** A Word file to send: a stored file's path, or the bytes built now. */
export type WordFile = { path: string } | { bytes: Buffer };

/**
 * The Word file kept with a version, if any: a counterparty's file as received, or the
 * template's rendering of a drafted version (services/templates/draft-from-template.ts).
 */
async function storedDocxOf(v: ContractVersionDoc): Promise<string | null> {
  const rendered = v.docx_document_id
    ? await Document.findOne({ _id: v.docx_document_id, organization_id: v.organization_id }, { storage_path: 1 }).lean()
    : null;
  const path = v.word_file ?? rendered?.storage_path ?? null;
  if (!path) return null;
  return (await access(path).then(
    () => true,
    () => false,
  ))
    ? path
    : null;
}

export async function exportVersionDocx(
  s: Engines,
  p: Principal,
  contractId: unknown,
  number: number,
): Promise<{ title: string; file: WordFile }> {
  const contract = await getContract(p, contractId);
  const v = await findVersion(contract, number);
  const stored = await storedDocxOf(v);
  if (stored) return { title: contract.title, file: { path: stored } };
  return { title: contract.title, file: { bytes: await writeDocx(textParagraphs(await textOfVersion(s, v))) } };
}

/** The redline as a Word file; changes without a Word author are version b's author's. */
export async function exportRedlineDocx(p: Principal, contractId: unknown, diff: VersionDiff): Promise<Buffer> {
  const contract = await getContract(p, contractId);
  const b = await findVersion(contract, diff.to.number);
  const by = { author: b.author_name ?? 'Unknown', date: (b.created_at ?? new Date()).toISOString() };
  return writeDocx(redlineParagraphs(diff.paragraphs, by));
}
