import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * A PDF of record exactly as a signature request froze it, addressed by its organization and
 * SHA-256 (`_id` `<organization id>:<sha256>`): written once, never changed, shared by every
 * request of the same file. The signer's download, the sealed PDF and the hashes all read
 * these bytes, never the uploaded file, which may change or go away. Kept whole in the record
 * (16 MB store limit; a request refuses a larger PDF, services/signatures/pdf-of-record.ts).
 */
const schema = new Schema(
  {
    _id: { type: String, required: true },
    organization_id: { type: Schema.Types.ObjectId, required: true, immutable: true },
    sha256: { type: String, required: true },
    bytes: { type: Buffer, required: true },
    size_bytes: { type: Number, required: true },
    frozen_at: { type: Date, required: true },
  },
  { versionKey: false },
);

export type FrozenPdfRecord = InferSchemaType<typeof schema>;
export const FrozenPdf = model('FrozenPdf', schema, 'frozen_pdfs');

export const frozenPdfId = (organizationId: string, sha256: string) => `${organizationId}:${sha256}`;
