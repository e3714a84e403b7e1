/**
 * Taking a template in: the file (a DOCX, or UTF-8 text with the same tags, made into a DOCX)
 * checked like any upload (by content, a ZIP bomb, macros, external relationships), its
 * declarations checked, and every tag checked at once against them (template-tags.ts), then
 * compiled by docxtemplater as the renderer will. Any problem is a 400 listing all of them.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Config } from '../../platform/config';
import { badRequest } from '../../platform/errors';
import JSZip from 'jszip';
import PizZip from 'pizzip';
import { refusalOf } from '../../platform/docx/docx-package';
import { docxFromText } from '../../platform/docx/from-text';
import { choice, requiredText } from '../../platform/input';
import { CONTRACT_TYPES } from '../../models/contract';
import { checkExpansion } from '../documents/check-expansion';
import { detectFileType, ExtractionLimitError, MIME, UnreadableDocumentError } from '../documents/document-files';
import { checkDeclarations, variableSchema } from '../clause-library/variables';
import { checkTags, describeTagProblems } from './template-tags';
import { compileTemplate, docxtemplaterProblems, TEMPLATED_PART } from './render-template';
import { templateErrors } from './errors';

const clauseType = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a clause type such as liability_cap');

/** What a version declares beside its file. */
export const versionDefinition = z.strictObject({
  variables: z.array(variableSchema).max(200, 'must declare at most 200 variables').default([]),
  clauses: z.array(clauseType).max(50, 'must place at most 50 clauses').default([]),
  note: z.string().trim().max(1000, 'must be at most 1000 characters').optional(),
});
/** A new template: its name and contract type, and its first version's declarations. */
export const templateDefinition = versionDefinition.extend({
  name: requiredText(200),
  description: z.string().trim().max(2000, 'must be at most 2000 characters').optional(),
  contract_type: choice(CONTRACT_TYPES),
});
/** A plain-text template in a JSON body: the text carries the tags. */
export const withText = { text: z.string().min(1, 'must not be empty').max(500_000, 'must be at most 500000 characters') };

export type VersionDefinition = z.infer<typeof versionDefinition>;

export interface TemplateFile {
  source: 'docx' | 'text';
  docx: Buffer;
  zip: PizZip;
}

/** The uploaded file, checked by content and for what a DOCX may not hold. */
export async function readUploadedTemplate(path: string, size: number, config: Config): Promise<TemplateFile> {
  if (size === 0) throw templateErrors.template_file_refused('file: is empty');
  if (size > config.TEMPLATE_MAX_BYTES)
    throw templateErrors.template_file_refused(`file: larger than the ${config.TEMPLATE_MAX_BYTES} bytes a template may have`);
  const mime = await detectFileType(path);
  if (mime === MIME.txt) return fromText(await readFile(path, 'utf8'));
  if (mime !== MIME.docx) throw templateErrors.template_file_refused('file: a template is a DOCX or a UTF-8 text file');
  try {
    await checkExpansion(path, MIME.docx, config.EXTRACT_MAX_EXPANDED_BYTES);
  } catch (err) {
    if (err instanceof ExtractionLimitError || err instanceof UnreadableDocumentError)
      throw templateErrors.template_file_refused(`file: ${err.message}`);
    throw err;
  }
  const docx = await readFile(path);
  const zip = await JSZip.loadAsync(docx).catch(() => null);
  if (!zip?.file('word/document.xml')) throw templateErrors.template_file_refused('file: not a readable DOCX (no word/document.xml)');
  // Macros, and external relationships a renderer such as LibreOffice would fetch (platform/docx/docx-package.ts).
  const refusal = await refusalOf(zip);
  if (refusal) throw templateErrors.template_file_refused(refusal.detail);
  return { source: 'docx', docx, zip: new PizZip(docx) };
}

export function fromText(text: string): TemplateFile {
  const docx = docxFromText(text);
  return { source: 'text', docx, zip: new PizZip(docx) };
}

/** Every problem of the declarations and the tags, as one 400; nothing when the template renders. */
export function checkTemplate(file: TemplateFile, def: VersionDefinition, libraryTypes: readonly string[]): void {
  const problems = checkDeclarations(def.variables, 'variables');
  for (const t of def.clauses)
    if (!libraryTypes.includes(t)) problems.push(`clauses: ${t} is not a clause type of the organization's clause library`);
  if (problems.length)
    throw templateErrors.template_invalid(
      `The template's declarations have ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
  const parts = Object.keys(file.zip.files)
    .filter((f) => TEMPLATED_PART.test(f))
    .map((f) => ({ file: f, xml: file.zip.file(f)!.asText() }));
  const tags = checkTags(parts, def.variables, def.clauses);
  if (tags.length) throw templateErrors.template_invalid(describeTagProblems(tags));
  try {
    compileTemplate(file.zip);
  } catch (err) {
    const listed = docxtemplaterProblems(err);
    if (!listed) throw err;
    throw templateErrors.template_invalid(`The template does not compile:\n${listed.map((p) => `- ${p}`).join('\n')}`);
  }
}

/** A file part as the multipart middleware stored it. */
interface StoredPart {
  path: string;
  size: number;
}

/**
 * The template and its declarations from a request: multipart with a `file` (DOCX or text)
 * and a `definition` part (JSON), or a JSON body of the declarations and a `text`.
 */
export async function templateInput<S extends z.ZodType>(
  config: Config,
  parts: { file?: StoredPart; definition?: StoredPart } | null,
  json: unknown,
  schema: S,
): Promise<{ file: TemplateFile; def: z.infer<S> }> {
  if (parts?.file) {
    if (!parts.definition)
      throw badRequest('definition: is required (a multipart part holding the declarations as JSON)', 'validation_failed');
    let declared: unknown;
    try {
      declared = JSON.parse(await readFile(parts.definition.path, 'utf8'));
    } catch {
      throw badRequest('definition: is not valid JSON', 'validation_failed');
    }
    const def = schema.parse(declared);
    return { file: await readUploadedTemplate(parts.file.path, parts.file.size, config), def };
  }
  const { text, ...declared } = z.looseObject(withText).parse(json ?? {});
  return { file: fromText(text), def: schema.parse(declared) };
}
