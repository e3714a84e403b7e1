import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * One position of a clause: its text (with `{{name}}` tags for its variables), whether
 * choosing it needs approval and by which policy, and the value it gives the clause's key term.
 * Position 0 is the preferred one; the others are the fallbacks, in the order they may be conceded.
 */
const positionSchema = new Schema(
  {
    text: { type: String, required: true },
    /** services/clause-library/variables.ts VariableDef[] */
    variables: { type: Schema.Types.Mixed, default: [] },
    needs_approval: { type: Boolean, default: false },
    approval_policy_id: { type: Schema.Types.ObjectId, default: null },
    term_value: { type: String, default: null },
  },
  { _id: false },
);

/** A clause of the organization's library, one per clause type; each change is a new version (ClauseVersion keeps them all). */
const schema = new Schema({
  ...tenantFields,
  type: { type: String, required: true, immutable: true },
  title: { type: String, required: true },
  /** The key term the clause states (services/contracts/key-terms.shared.ts), if any. */
  key_term: { type: String, default: null },
  version: { type: Number, required: true },
  positions: { type: [positionSchema], required: true },
  created_by: { type: Schema.Types.ObjectId, default: null, immutable: true },
});
schema.plugin(basePlugin);
schema.index({ organization_id: 1, type: 1 }, { unique: true });

export type ClauseDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Clause = model('Clause', schema, 'clauses');

/** Every version a clause had, as it was: a contract names the version it used. */
const versionSchema = new Schema({
  ...tenantFields,
  clause_id: { type: Schema.Types.ObjectId, required: true, immutable: true },
  type: { type: String, required: true, immutable: true },
  version: { type: Number, required: true, immutable: true },
  title: { type: String, required: true, immutable: true },
  key_term: { type: String, default: null, immutable: true },
  positions: { type: [positionSchema], required: true, immutable: true },
});
versionSchema.plugin(basePlugin);
versionSchema.index({ clause_id: 1, version: -1 }, { unique: true });

export type ClauseVersionDoc = HydratedDocument<InferSchemaType<typeof versionSchema>>;
export const ClauseVersion = model('ClauseVersion', versionSchema, 'clause_versions');
