/**
 * Versions as Word files: one version (the Word file it came from when there is one, else
 * built from its text), and the redline of two as a Word file with native tracked changes.
 */
import { access } from 'node:fs/promises';
import type { Engines } from '../../platform/engines';
import { writeDocx } from '../../platform/docx/write-docx';
import type { ContractDoc } from '../../models/contract';
import type { ContractVersionDoc } from '../../models/contract-version';
import { findVersion, textOfVersion } from './contract-versions';
import type { VersionDiff } from './diff-contract-versions';
import { redlineParagraphs, textParagraphs } from './word-text';

/** A Word file to send: a stored file's path, or the bytes built now. */
export type WordFile = { path: string } | { bytes: Buffer };

/**
 * The Word file kept with a version, if any: a counterparty's file as received. A template's
 * rendering, once versions keep one, is served from here too.
 */
async function storedDocxOf(v: ContractVersionDoc): Promise<string | null> {
  if (!v.word_file) return null;
  return (await access(v.word_file).then(
    () => true,
    () => false,
  ))
    ? v.word_file
    : null;
}

export async function exportVersionDocx(s: Engines, contract: ContractDoc, number: number): Promise<WordFile> {
  const v = await findVersion(contract, number);
  const stored = await storedDocxOf(v);
  if (stored) return { path: stored };
  return { bytes: await writeDocx(textParagraphs(await textOfVersion(s, v))) };
}

/** The redline as a Word file; changes without a Word author are version b's author's. */
export async function exportRedlineDocx(contract: ContractDoc, diff: VersionDiff): Promise<Buffer> {
  const b = await findVersion(contract, diff.to.number);
  const by = { author: b.author_name ?? 'Unknown', date: (b.created_at ?? new Date()).toISOString() };
  return writeDocx(redlineParagraphs(diff.paragraphs, by));
}
