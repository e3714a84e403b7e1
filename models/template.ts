import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const TEMPLATE_STATUSES = ['draft', 'published', 'archived'] as const;

/**
 * A contract template of an organization: its versions are TemplateVersion records; members
 * draft from the published one. Admins and owners upload versions, publish and archive.
 */
const schema = new Schema({
  ...tenantFields,
  name: { type: String, required: true, trim: true },
  description: { type: String, default: null },
  /** The type of the contracts drafted from it (models/contract.ts CONTRACT_TYPES). */
  contract_type: { type: String, required: true },
  status: { type: String, enum: TEMPLATE_STATUSES, default: 'draft' },
  latest_version: { type: Number, default: 1 },
  published_version: { type: Number, default: null },
  created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },
});
schema.plugin(basePlugin);
schema.index({ organization_id: 1, status: 1, name: 1 });

export type TemplateDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Template = model('Template', schema, 'templates');

/**
 * One version of a template, never changed once written: its DOCX (a plain-text template is
 * kept as the DOCX made from it), the variables it declares and the clauses it places.
 */
const versionSchema = new Schema({
  ...tenantFields,
  template_id: { type: Schema.Types.ObjectId, required: true, immutable: true },
  number: { type: Number, required: true, immutable: true },
  source: { type: String, enum: ['docx', 'text'], required: true, immutable: true },
  docx: { type: Buffer, required: true, immutable: true },
  /** services/clause-library/variables.ts VariableDef[] */
  variables: { type: Schema.Types.Mixed, default: [], immutable: true },
  /** The clause types it places ({{clause.<type>}}), each from the organization's clause library. */
  clauses: { type: [String], default: [], immutable: true },
  note: { type: String, default: null, immutable: true },
  created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },
});
versionSchema.plugin(basePlugin, { hidden: ['docx'] });
versionSchema.index({ template_id: 1, number: -1 }, { unique: true });

export type TemplateVersionDoc = HydratedDocument<InferSchemaType<typeof versionSchema>>;
export const TemplateVersion = model('TemplateVersion', versionSchema, 'template_versions');
