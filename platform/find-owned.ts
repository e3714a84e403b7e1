/**
 * The one way to read a tenant-owned record by id: scoped to the caller's organization,
 * so a foreign, unknown or malformed id all answer the same 404 and nothing says which.
 */
import { inOrg } from '../models/base';
import { notFound } from './errors';

/** What `findOne` of a model resolves to: its hydrated document (mongoose's HydratedDocFromModel). */
type DocOf<M extends Findable> = ReturnType<M['hydrate']>;

interface Findable {
  findOne(filter: Record<string, unknown>, projection?: Record<string, 0 | 1>): PromiseLike<unknown>;
  hydrate(obj: object): unknown;
}

export interface OwnedLookup {
  /** Narrows further inside the organization (a conversation is also its user's). */
  where?: Record<string, unknown>;
  projection?: Record<string, 0 | 1>;
}

export async function findOwned<M extends Findable>(
  model: M,
  owner: { organizationId: string },
  id: unknown,
  label: string,
  lookup: OwnedLookup = {},
): Promise<DocOf<M>> {
  const filter = inOrg(owner.organizationId, id);
  const found = filter && ((await model.findOne({ ...lookup.where, ...filter }, lookup.projection)) as DocOf<M> | null);
  if (!found) throw notFound(label);
  return found;
}
