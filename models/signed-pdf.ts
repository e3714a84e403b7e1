import { Schema, model, type InferSchemaType } from 'mongoose';

/**
 * The signed PDF of a completed signature request, one per request (`_id` is the request's
 * id, so a retried or repeated sealing step can never store a second one): `rendered` holds
 * the unsealed pages between the render and seal activities, `sealed` the final file.
 * Files are kept whole in the record (16 MB store limit; sealing refuses larger ones).
 */
const schema = new Schema(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    organization_id: { type: Schema.Types.ObjectId, required: true, immutable: true },
    state: { type: String, enum: ['rendered', 'sealed'], required: true },
    bytes: { type: Buffer, required: true },
    sha256: { type: String, required: true },
    size_bytes: { type: Number, required: true },
    rendered_at: { type: Date, required: true },
    sealed_at: { type: Date, default: null },
    /** SHA-256 of the sealing certificate's DER. */
    seal_certificate: { type: String, default: null },
  },
  { versionKey: false },
);

export type SignedPdfRecord = InferSchemaType<typeof schema>;
export const SignedPdf = model('SignedPdf', schema, 'signed_pdfs');
