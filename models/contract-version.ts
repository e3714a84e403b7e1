import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { draftedFromSchema, usedClauseSchema } from './contract';

/**
 * One version of a contract's text of record, never changed once written but for the two
 * things learned later: the text extracted from its PDF (kept for the redline on first
 * use) and the key terms its extraction found. Numbered from 1 per contract.
 */
const schema = new Schema(
  {
    ...tenantFields,
    contract_id: { type: Schema.Types.ObjectId, required: true, immutable: true },
    number: { type: Number, required: true, immutable: true },
    author_id: { type: Schema.Types.ObjectId, default: null, immutable: true },
    author_name: { type: String, default: null, immutable: true },
    note: { type: String, default: null, immutable: true },
    /** `content`: the contract's text; `document`: its PDF of record (`document_id`). */
    source: { type: String, enum: ['content', 'document'], required: true, immutable: true },
    content: { type: String, default: '', immutable: true },
    document_id: { type: Schema.Types.ObjectId, default: null, immutable: true },
    /** SHA-256 hex of the text (UTF-8) or of the PDF's bytes: what approvals bind to. */
    sha256: { type: String, required: true, immutable: true },
    /** For a document version, its extracted text (null until first needed). */
    extracted_text: { type: String, default: null },
    /** Whether extracted_text was cut at VERSION_TEXT_MAX_CHARS (null until extracted). */
    extracted_text_truncated: { type: Boolean, default: null },
    restored_from: { type: Number, default: null, immutable: true },
    /** The Word file this version came from, as received (storage path; served by the export). */
    word_file: { type: String, default: null, immutable: true },
    /** The Word file's tracked changes ({op, text, author, date, paragraph}), shown as their authors' in the redline. */
    tracked_changes: { type: [Schema.Types.Mixed], default: undefined, immutable: true },
    /** The Word file's comments ({id, author, date, text, anchor}). */
    comments: { type: [Schema.Types.Mixed], default: undefined, immutable: true },
    /** For a version drafted from a template: the template and version, the clause positions used, and the DOCX rendered. */
    template: { type: draftedFromSchema, default: null, immutable: true },
    clauses: { type: [usedClauseSchema], default: [], immutable: true },
    docx_document_id: { type: Schema.Types.ObjectId, default: null, immutable: true },
    /** The key terms found for this version's text (a snapshot of the contract's terms when its extraction completed). */
    terms: { type: Schema.Types.Mixed, default: null },
    terms_extracted_at: { type: Date, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const },
);
schema.plugin(basePlugin, { hidden: ['extracted_text', 'word_file'] });
schema.index({ contract_id: 1, number: -1 }, { unique: true });

export type ContractVersionDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const ContractVersion = model('ContractVersion', schema, 'contract_versions');
