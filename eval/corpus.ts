/**
 * The evaluation corpus: the Common Paper templates in eval/corpus (CC BY 4.0, see
 * eval/corpus/NOTICE.md) with a deal's values written into their `{placeholder}` fields, as Word
 * files, so they are ingested exactly as a customer's DOCX would be. The held-out key-term
 * sets (other publishers' agreements, eval/heldout.json and eval/unseen.json) are read the
 * same way from HELDOUT_DIR and UNSEEN_DIR; a source that is not a Word file is text
 * (Markdown as published), filled the same way and uploaded as a TXT.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import JSZip from 'jszip';
import { z } from 'zod';

export const CORPUS_DIR = process.env.EVAL_CORPUS_DIR ?? path.resolve(__dirname, 'corpus');
/** Where the held-out agreements are kept (not in the project: see eval/README.md for their source). */
export const HELDOUT_DIR = process.env.EVAL_HELDOUT_DIR ?? path.resolve(__dirname, 'heldout');
/** The second held-out set, labelled before the extractor first ran on it. */
export const UNSEEN_DIR = process.env.EVAL_UNSEEN_DIR ?? path.resolve(__dirname, 'unseen');
/** Agreements written for the evaluation from public templates' structure (eval/written/README.md): a tuning part and a held-out part. */
export const WRITTEN_TUNING_DIR = path.resolve(__dirname, 'written/tuning');
export const WRITTEN_HELDOUT_DIR = path.resolve(__dirname, 'written/heldout');
/** A second held-out part, written and labelled on 2026-11-28 before the rules were revised again (eval/written/README.md). */
export const WRITTEN_HELDOUT2_DIR = path.resolve(__dirname, 'written/heldout2');

const termValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

export const CorpusDocument = z.object({
  file: z.string(),
  /** The file's SHA-256: the labels are of this version of the template. */
  sha256: z.string().optional(),
  /** The kind of agreement (nda, msa, order_form, dpa, saas, professional_services, …), for the written sets. */
  kind: z.string().optional(),
  contract: z.object({ title: z.string(), type: z.string(), counterparty: z.string() }),
  /** Placeholder name → value; a list gives the value of each occurrence in order (the last repeats). */
  fill: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** Other template text to replace, such as a "[ # ]" blank. */
  literal: z.array(z.tuple([z.string(), z.string()])).default([]),
  /** The key terms a careful reader finds in the filled document; a missing key is null. */
  terms: z.record(z.string(), termValue),
});
export type CorpusDocument = z.infer<typeof CorpusDocument>;

export const Question = z.object({
  id: z.string(),
  document: z.string(),
  kind: z.enum(['literal', 'paraphrase']),
  question: z.string(),
  /** Verbatim text that a retrieved passage must contain. */
  passage: z.string(),
});
export type Question = z.infer<typeof Question>;

const readJson = async (name: string) => JSON.parse(await readFile(path.join(__dirname, name), 'utf8')) as unknown;
const documentsIn = async (name: string) => z.object({ documents: z.array(CorpusDocument) }).parse(await readJson(name)).documents;
const questionsIn = async (name: string) => z.object({ questions: z.array(Question) }).parse(await readJson(name)).questions;

export interface EvaluationSet {
  documents: CorpusDocument[];
  questions: Question[];
  /** Questions written after the rules and before any retrieval tuning, never tuned against. */
  heldOutQuestions: Question[];
  /** Other publishers' agreements, labelled before the rules first ran on them (and revised after). */
  heldOutDocuments: CorpusDocument[];
  /** More of them, labelled before any extraction; the rules were revised with them in view on 2026-11-26. */
  unseenDocuments: CorpusDocument[];
  /** Agreements written for the evaluation, on which the rules of 2026-11-28 were tuned. */
  writtenTuning: CorpusDocument[];
  /** Agreements written and labelled before those rules, never run while tuning them: the held-out part. */
  writtenHeldOut: CorpusDocument[];
  /** The second held-out part: written and committed before the second revision of the rules, run once after it. */
  writtenHeldOut2: CorpusDocument[];
}

export async function loadSet(): Promise<EvaluationSet> {
  return {
    documents: await documentsIn('corpus.json'),
    questions: await questionsIn('questions.json'),
    heldOutQuestions: await questionsIn('questions-heldout.json'),
    heldOutDocuments: await documentsIn('heldout.json'),
    unseenDocuments: await documentsIn('unseen.json'),
    writtenTuning: await documentsIn('written-tuning.json'),
    writtenHeldOut: await documentsIn('written-heldout.json'),
    writtenHeldOut2: await documentsIn('written-heldout2.json'),
  };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern for `text` as Word stores it: any run boundaries (tags) may fall between its
 * characters. Replacing such a match drops the tags inside it, which are always a closing
 * run followed by an opening one, so the XML stays balanced.
 */
const acrossRuns = (text: string) => new RegExp([...escapeXml(text)].map(escapeRegExp).join('(?:<[^>]+>)*'), 'g');

/** `text` with the deal's values in place of its `{name}` fields, each value written through `escape`. */
function fillPlaceholders(text: string, fill: CorpusDocument['fill'], escape: (s: string) => string): string {
  let out = text;
  for (const [name, value] of Object.entries(fill)) {
    const values = Array.isArray(value) ? value : [value];
    let n = 0;
    out = out.replace(new RegExp(`\\{${name}\\}`, 'g'), () => escape(values[Math.min(n++, values.length - 1)]!));
  }
  return out;
}

/** The template's document.xml with the deal's values in place and the `{IF x}`/`{END-IF}` markers removed (their content kept). */
export function fillXml(xml: string, doc: Pick<CorpusDocument, 'fill' | 'literal'>): string {
  let out = fillPlaceholders(xml.replace(/\{IF [a-z_]+\}|\{END-IF\}/g, ''), doc.fill, escapeXml);
  for (const [from, to] of doc.literal) out = out.replace(acrossRuns(from), escapeXml(to));
  return out;
}

/** A text source (Markdown as published) with the deal's values in place. */
function fillText(text: string, doc: Pick<CorpusDocument, 'fill' | 'literal'>): string {
  let out = fillPlaceholders(text, doc.fill, (s) => s);
  for (const [from, to] of doc.literal) out = out.replaceAll(from, to);
  return out;
}

/** The file as uploaded: a Word file with its document.xml filled, a PDF as it is, or a text file filled as text. */
export async function filledFile(doc: CorpusDocument, dir = CORPUS_DIR): Promise<Buffer> {
  const file = await readFile(path.join(dir, doc.file));
  const sha256 = createHash('sha256').update(file).digest('hex');
  if (doc.sha256 && doc.sha256 !== sha256) throw new Error(`${doc.file}: SHA-256 ${sha256}, not the labelled version ${doc.sha256}`);
  if (doc.file.endsWith('.pdf')) return file;
  if (!doc.file.endsWith('.docx')) return Buffer.from(fillText(file.toString('utf8'), doc), 'utf8');
  const zip = await JSZip.loadAsync(file);
  const entry = zip.file('word/document.xml');
  if (!entry) throw new Error(`${doc.file}: no word/document.xml`);
  zip.file('word/document.xml', fillXml(await entry.async('string'), doc));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** Text compared for "contains": curly quotes as straight ones, white space collapsed. */
export const comparable = (s: string) =>
  s
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
