/**
 * What every model shares: `created_at`/`updated_at`, JSON output with `id` (no `_id`,
 * no `__v`, no fields the model marks hidden), and organization scoping, so that a
 * tenant-owned record is only ever looked up together with its organization.
 */
import { Schema, Types } from 'mongoose';

export interface BaseOptions {
  /** Fields never serialized (hashes, encrypted secrets). */
  hidden?: readonly string[];
}

export function basePlugin(schema: Schema, options: BaseOptions = {}): void {
  schema.set('timestamps', { createdAt: 'created_at', updatedAt: 'updated_at' });
  schema.set('versionKey', false);
  schema.set('toJSON', {
    virtuals: false,
    transform: (_doc, ret: Record<string, unknown>) => {
      ret.id = String(ret._id);
      delete ret._id;
      for (const f of options.hidden ?? []) delete ret[f];
      for (const [k, v] of Object.entries(ret)) if (v instanceof Types.ObjectId) ret[k] = v.toHexString();
      return ret;
    },
  });
}

/** The owning organization: spread into every tenant-owned schema's definition. */
export const tenantFields = {
  organization_id: { type: Schema.Types.ObjectId, required: true, index: true, immutable: true },
} as const;

/** An id as the store writes it: 24 lowercase hex characters (the OpenAPI document's id pattern). */
export const ID_PATTERN = /^[0-9a-f]{24}$/;
export const isObjectId = (id: unknown): id is string => typeof id === 'string' && ID_PATTERN.test(id);

/**
 * The filter for one record of one organization, or null when the id cannot exist
 * (malformed ids answer 404 like unknown ones).
 */
export function inOrg(organizationId: string, id: unknown): { _id: Types.ObjectId; organization_id: Types.ObjectId } | null {
  if (!isObjectId(id)) return null;
  return { _id: new Types.ObjectId(id), organization_id: new Types.ObjectId(organizationId) };
}

export const orgFilter = (organizationId: string) => ({ organization_id: new Types.ObjectId(organizationId) });
