/**
 * Write announcements: every write to a model's records is announced with the records it
 * touched, whatever route, activity or workflow made it, so what is kept beside the store
 * (the auth cache, services/identity/auth-user.ts; the list index, platform/lists/list-index.ts) can follow before
 * the write's caller carries on. Listeners must not throw: the write has happened.
 */
import { Document, Types, type CallbackError, type Model, type MongooseQueryMiddleware, type Query, type Schema } from 'mongoose';

export interface Written {
  id: Types.ObjectId;
  organizationId: Types.ObjectId | null;
  /** The record as the write left it, when the write inserted it or returned it whole. */
  stored?: unknown;
  /** The schema's `carried` fields as they were before a delete or an update of them. */
  before?: Record<string, unknown>;
}

type WrittenListener = (written: Written[]) => Promise<void>;

export interface AnnounceOptions {
  /** Fields no listener follows: a write that changes only these is not announced. */
  ignored?: readonly string[];
  /**
   * Fields whose value before the write listeners need (a record's parent): a delete leaves
   * nothing to read back, and a move leaves the old parent to update too.
   */
  carried?: readonly string[];
}

const QUERY_WRITES: MongooseQueryMiddleware[] = [
  'updateOne',
  'updateMany',
  'findOneAndUpdate',
  'findOneAndReplace',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'findOneAndDelete',
];

const listenersOf = new WeakMap<Schema, Set<WrittenListener>>();
const touchedBy = new WeakMap<object, Written[]>();

interface Identified {
  _id: Types.ObjectId;
  organization_id?: Types.ObjectId | null;
}
const writtenOf = (d: Identified, carried: readonly string[] = []): Written => ({
  id: d._id,
  organizationId: d.organization_id ?? null,
  ...(carried.length ? { before: Object.fromEntries(carried.map((f) => [f, (d as unknown as Record<string, unknown>)[f]])) } : {}),
});

/** The fields an update sets, or null when it cannot tell (a delete, a pipeline). */
function updatedFields(update: unknown): string[] | null {
  if (!update || typeof update !== 'object' || Array.isArray(update)) return null;
  return Object.entries(update as Record<string, unknown>).flatMap(([key, value]) =>
    key.startsWith('$') ? Object.keys(value ?? {}) : [key],
  );
}

/**
 * Whether a find-and-modify returned the whole record `id` as its write left it (no
 * projection, the document after), so listeners need not read it back.
 */
function returnedWhole(query: Query<unknown, unknown>, result: unknown, id: Types.ObjectId): boolean {
  const { returnDocument, new: after } = query.getOptions();
  const projection = query.projection() as Record<string, unknown> | undefined;
  return (
    (returnDocument === 'after' || after === true) &&
    Object.keys(projection ?? {}).length === 0 &&
    result instanceof Document &&
    (result._id as Types.ObjectId).equals(id)
  );
}

/** Announces the schema's writes; call before `model()`. */
export function announceWrites(schema: Schema, options: AnnounceOptions = {}): void {
  const listeners = new Set<WrittenListener>();
  listenersOf.set(schema, listeners);
  const ignored = new Set(options.ignored ?? []);
  const carried = options.carried ?? [];
  const matters = (fields: string[] | null) => fields === null || fields.some((f) => !ignored.has(f.split('.')[0]!));
  const announce = async (written: Written[]) => {
    if (written.length) await Promise.all([...listeners].map((listener) => listener(written)));
  };

  schema.pre(QUERY_WRITES, { document: false, query: true }, async function (this: Query<unknown, unknown>) {
    const fields = updatedFields(this.getUpdate());
    if (!matters(fields)) return;
    const filter = this.getFilter();
    if (fields && filter._id instanceof Types.ObjectId && !fields.some((f) => carried.includes(f))) {
      // An update of one record by id: nothing to look up (listeners read records back).
      touchedBy.set(this, [
        { id: filter._id, organizationId: filter.organization_id instanceof Types.ObjectId ? filter.organization_id : null },
      ]);
      return;
    }
    // Read before the write: after it, a delete leaves nothing and an update may no longer match.
    const projection = Object.fromEntries(['_id', 'organization_id', ...carried].map((f) => [f, 1]));
    const found = await this.model.find(filter, projection).lean<Identified[]>();
    touchedBy.set(
      this,
      found.map((d) => writtenOf(d, carried)),
    );
  });
  schema.post(
    QUERY_WRITES.filter((op) => op !== 'findOneAndUpdate'),
    { document: false, query: true },
    async function (this: Query<unknown, unknown>) {
      await announce(touchedBy.get(this) ?? []);
    },
  );
  schema.post('findOneAndUpdate', { document: false, query: true }, async function (this: Query<unknown, unknown>, result: unknown) {
    const touched = touchedBy.get(this) ?? [];
    await announce(touched.length === 1 && returnedWhole(this, result, touched[0]!.id) ? [{ ...touched[0]!, stored: result }] : touched);
  });
  schema.pre('save', function () {
    this.$locals.inserted = this.isNew;
    this.$locals.announce = this.isNew || matters(this.modifiedPaths());
  });
  schema.post('save', async function (doc) {
    if (doc.$locals.announce)
      await announce([{ ...writtenOf(doc as unknown as Identified), ...(doc.$locals.inserted ? { stored: doc } : {}) }]);
  });
  schema.post('deleteOne', { document: true, query: false }, async function (doc) {
    await announce([writtenOf(doc as unknown as Identified, carried)]);
  });
  schema.post('insertMany', async function (docs: unknown) {
    await announce((docs as Identified[]).map((d) => ({ ...writtenOf(d), stored: d })));
  });
  // An unordered insertMany that met duplicate keys (a re-run bulk import) inserted the rest: announce those.
  schema.post('insertMany', function (err: CallbackError, _docs: unknown, next: (err?: CallbackError) => void) {
    const inserted = (err as { insertedDocs?: Identified[] }).insertedDocs ?? [];
    announce(inserted.map((d) => ({ ...writtenOf(d), stored: d }))).then(
      () => next(err),
      () => next(err),
    );
  });
}

/** Registers a listener of a model's writes; returns its removal. */
export function onWritten(model: Pick<Model<unknown>, 'schema' | 'modelName'>, listener: WrittenListener): () => void {
  const listeners = listenersOf.get(model.schema);
  if (!listeners) throw new Error(`${model.modelName} does not announce its writes`);
  listeners.add(listener);
  return () => listeners.delete(listener);
}
