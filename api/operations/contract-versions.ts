/** The OpenAPI description of contract versions and redlines (api/routes/contract-versions.ts). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { KEY_TERMS } from '../../services/contracts/key-terms.shared';
import { operation, registry, timestamp } from '../http/openapi';
import { contractSchema } from './contracts';

const number = (name: string) =>
  z.coerce.number(`${name}: must be a version number`).int(`${name}: must be a version number`).min(1, `${name}: must be at least 1`);
export const versionParams = z.object({ id: idSchema, n: number('n') });
export const diffParams = z.object({ id: idSchema, a: number('a'), b: number('b') });
export const restoreBody = z.object({
  version_note: z.string().trim().max(1000, 'must be at most 1000 characters').optional(),
});
/** The fields beside the file of `POST /contracts/{id}/versions`. */
export const wordVersionBody = restoreBody;

const trackedChangeSchema = z.object({
  op: z.enum(['insert', 'delete']),
  text: z.string(),
  author: z.string().nullable(),
  date: z.string().nullable(),
  paragraph: z.number().int().meta({ description: '0-based paragraph of the accepted text (of the rejected text for a deletion)' }),
});
const commentSchema = z.object({
  number: z.number().int().meta({ description: "Word's number of the comment" }),
  author: z.string().nullable(),
  date: z.string().nullable(),
  text: z.string(),
  anchor: z.string().meta({ description: 'The text the comment marks' }),
});

const versionSchema = registry.register(
  'ContractVersion',
  z.object({
    id: idSchema,
    contract_id: idSchema,
    number: z.number().int(),
    author: z.object({ id: idSchema.nullable(), name: z.string().nullable() }),
    created_at: timestamp,
    version_note: z.string().nullable(),
    source: z.enum(['content', 'document']).meta({ description: '`document`: the version is the PDF of record `document_id`' }),
    document_id: idSchema.nullable(),
    sha256: z.string().meta({ description: "SHA-256 hex of the text (UTF-8) or the PDF's bytes; approvals bind to it" }),
    restored_from: z.number().int().nullable(),
    text_truncated: z.boolean().nullable().meta({
      description:
        "Whether the text the redline compares was cut at VERSION_TEXT_MAX_CHARS (a PDF's extracted text only; false for content); null while a PDF version's text was never extracted",
    }),
    terms: z.record(z.string(), z.unknown()).nullable().meta({ description: "The key terms found in this version's text, once extracted" }),
    terms_extracted_at: timestamp.nullable(),
    from_word: z.boolean().meta({ description: 'The version is a Word file taken in; its export serves that file' }),
    content: z.string().optional().meta({ description: 'The text (one version only)' }),
    tracked_changes: z.array(trackedChangeSchema).optional().meta({ description: "The Word file's tracked changes (one version only)" }),
    comments: z.array(commentSchema).optional().meta({ description: "The Word file's comments (one version only)" }),
  }),
);

const versionRef = z.object({
  number: z.number().int(),
  sha256: z.string(),
  text_truncated: z.boolean().meta({
    description:
      "true when the version's text (a PDF's extracted text) was cut at VERSION_TEXT_MAX_CHARS: the redline compares its beginning only",
  }),
});
const attributed = {
  author: z.string().nullable().optional().meta({ description: "The author of the Word file's tracked change that made this" }),
  date: z.string().nullable().optional().meta({ description: 'When that tracked change was made' }),
};
const part = z.object({ op: z.enum(['equal', 'insert', 'delete']), text: z.string(), ...attributed });
const redlineSchema = registry.register(
  'Redline',
  z.object({
    contract_id: idSchema,
    from: versionRef,
    to: versionRef,
    clauses: z
      .array(z.object({ term: z.enum(KEY_TERMS), from: z.string().nullable(), to: z.string().nullable(), summary: z.string() }))
      .nullable()
      .meta({
        description:
          'Key terms that differ, e.g. "liability cap: 12 months\' fees → uncapped"; null until both versions\' terms are extracted',
      }),
    paragraphs: z.array(
      z.object({
        op: z.enum(['equal', 'insert', 'delete', 'change']),
        a: z.number().int().optional().meta({ description: '0-based paragraph of version `a` (absent for an insertion)' }),
        b: z.number().int().optional().meta({ description: '0-based paragraph of version `b` (absent for a deletion)' }),
        text: z.string().optional().meta({ description: 'The paragraph (equal, insert, delete)' }),
        parts: z.array(part).optional().meta({ description: 'Word-level insertions and deletions of an edited paragraph (change)' }),
        ...attributed,
      }),
    ),
    stats: z.object({
      paragraphs_a: z.number().int(),
      paragraphs_b: z.number().int(),
      inserted_words: z.number().int(),
      deleted_words: z.number().int(),
      changed_paragraphs: z.number().int(),
    }),
  }),
);

const tag = 'Contract versions';
operation({
  path: '/contracts/{id}/versions',
  method: 'get',
  tag,
  summary: "A contract's versions, newest first (without their text)",
  description:
    'Every change of `content` or `document_id` (create, update with an optional `version_note`, AI draft, restore) makes an immutable version.',
  responses: { 200: { description: 'The versions', schema: z.object({ versions: z.array(versionSchema), total: z.number().int() }) } },
});
operation({
  path: '/contracts/{id}/versions',
  method: 'post',
  tag,
  summary: 'Take a Word file (a counterparty redline) as the next version',
  description:
    'multipart/form-data with `file` (a DOCX) and an optional `version_note`. The accepted text becomes `content`; the version keeps the file, its tracked changes (shown with their authors in the redline) and its comments. A ZIP bomb or an external relationship other than a hyperlink answers 400, a macro-enabled or non-DOCX file 415.',
  params: z.object({ id: idSchema }),
  multipart: wordVersionBody.extend({
    file: z.string().meta({ format: 'binary', description: 'The DOCX; its type is checked by content' }),
  }),
  responses: { 201: { description: 'The new version, with its text, tracked changes and comments', schema: versionSchema } },
});
operation({
  path: '/contracts/{id}/versions/{n}/document.docx',
  method: 'get',
  tag,
  summary: 'One version as a Word file',
  description:
    'The Word file the version came from, when it was taken from one; otherwise a DOCX built from its text: a paragraph per line, `#` lines as headings, numbered clauses indented.',
  params: versionParams,
  responses: {
    200: { description: 'The DOCX', content: { 'application/vnd.openxmlformats-officedocument.wordprocessingml.document': z.string() } },
  },
});
operation({
  path: '/contracts/{id}/versions/{n}',
  method: 'get',
  tag,
  summary: 'One version, with its text',
  params: versionParams,
  responses: { 200: { description: 'The version', schema: versionSchema } },
});
operation({
  path: '/contracts/{id}/versions/{n}/restore',
  method: 'post',
  tag,
  summary: "Make an old version's text of record current again, as a new version",
  description: 'Supersedes open approval requests, like any edit.',
  params: versionParams,
  body: restoreBody,
  responses: { 200: { description: 'The contract', schema: contractSchema } },
});
operation({
  path: '/contracts/{id}/versions/{a}/diff/{b}',
  method: 'get',
  tag,
  summary: 'The redline from version a to version b',
  description:
    "Paragraphs matched first, then words within edited ones; a version of a PDF of record is compared by its extracted text, kept up to VERSION_TEXT_MAX_CHARS characters (`text_truncated` says when it was cut). Computed off the API's event loop, bounded in time for any input (two 500 KB versions well under 2 s). With `Accept: text/html`, a page: insertions underlined, deletions struck, all text escaped, no script allowed. With `Accept: application/vnd.openxmlformats-officedocument.wordprocessingml.document`, a Word file with native tracked changes: accepting all gives version b's text, rejecting all version a's.",
  params: diffParams,
  responses: {
    200: {
      description: 'The redline',
      content: {
        'application/json': redlineSchema,
        'text/html': z.string(),
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document': z.string(),
      },
    },
  },
});
