/**
 * Write announcements: every write to a model's records is announced with the records it
 * touched, whatever route, activity or workflow made it, so that the list index
 * (platform/lists/list-index.ts) can follow before the write's caller carries on. Listeners
 * must not throw: the write has happened.
 *
 * The last middleware that does work in another engine (Redis, and the pending marks in the
 * store): issue 39 asks for explicit calls from the use cases or an outbox consumer instead.
 * Retiring the index is no option on FerretDB 1.24, which sorts and counts in its own process:
 * page 3 of 10,000 vendors took 4.1 s from the store (2.5 s with a status filter) against 15 ms
 * (12 ms) from the index, on 28 November at load 18. So it is to become an outbox consumer.
 * The auth cache and the search index no longer listen here; test/unit/models/middleware.test.ts
 * lists every middleware and fails on any other.
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

/**
 * A listener that also hears of a write before it reaches the store, with the organizations
 * it touches, so that a write whose process dies halfway leaves a trace (the list index's
 * pending marks). What `before` returns comes back to `after`, also when the write failed.
 */
export interface WriteFollower<Ticket> {
  before(organizationIds: Types.ObjectId[]): Promise<Ticket>;
  /** `ticket` is undefined when `before` was not called (a write touching no organization). */
  after(written: Written[], ticket: Ticket | undefined): Promise<void>;
}
// Method syntax: a follower of any ticket type is kept here as one of unknown tickets.
interface Listener {
  before?(organizationIds: Types.ObjectId[]): Promise<unknown>;
  after(written: Written[], ticket: unknown): Promise<void>;
}
type Tickets = Map<Listener, unknown>;

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

const listenersOf = new WeakMap<Schema, Set<Listener>>();
const touchedBy = new WeakMap<object, { written: Written[]; tickets: Tickets }>();
/** An insertMany's tickets, by the id of each of its records (its pre and post hooks share no object). */
const insertTickets = new Map<string, { tickets: Tickets; ids: string[] }>();

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

/** The distinct organizations of records. */
function organizationsOf(records: Array<{ organization_id?: unknown }>): Types.ObjectId[] {
  const seen = new Map<string, Types.ObjectId>();
  for (const r of records) {
    const id = r.organization_id;
    const org = id instanceof Types.ObjectId ? id : typeof id === 'string' && Types.ObjectId.isValid(id) ? new Types.ObjectId(id) : null;
    if (org) seen.set(org.toHexString(), org);
  }
  return [...seen.values()];
}

/** Announces the schema's writes; call before `model()`. */
export function announceWrites(schema: Schema, options: AnnounceOptions = {}): void {
  const listeners = new Set<Listener>();
  listenersOf.set(schema, listeners);
  const ignored = new Set(options.ignored ?? []);
  const carried = options.carried ?? [];
  const matters = (fields: string[] | null) => fields === null || fields.some((f) => !ignored.has(f.split('.')[0]!));
  const followed = () => [...listeners].some((l) => l.before !== undefined);
  /** Tells the followers a write is about to touch these organizations. */
  const before = async (organizations: Types.ObjectId[]): Promise<Tickets> => {
    const tickets: Tickets = new Map();
    if (!organizations.length) return tickets;
    for (const l of listeners) if (l.before) tickets.set(l, await l.before(organizations));
    return tickets;
  };
  const announce = async (written: Written[], tickets?: Tickets) => {
    const told = [...listeners].filter((l) => written.length || tickets?.has(l));
    await Promise.all(told.map((l) => l.after(written, tickets?.get(l))));
  };

  schema.pre(QUERY_WRITES, { document: false, query: true }, async function (this: Query<unknown, unknown>) {
    const fields = updatedFields(this.getUpdate());
    if (!matters(fields)) return;
    const filter = this.getFilter();
    const organizationId = filter.organization_id instanceof Types.ObjectId ? filter.organization_id : null;
    if (fields && filter._id instanceof Types.ObjectId && !fields.some((f) => carried.includes(f)) && (organizationId || !followed())) {
      // An update of one record by id: nothing to look up (listeners read records back).
      const written = [{ id: filter._id, organizationId }];
      touchedBy.set(this, { written, tickets: await before(organizationId ? [organizationId] : []) });
      return;
    }
    // Read before the write: after it, a delete leaves nothing and an update may no longer match.
    const projection = Object.fromEntries(['_id', 'organization_id', ...carried].map((f) => [f, 1]));
    const found = await this.model.find(filter, projection).lean<Identified[]>();
    touchedBy.set(this, { written: found.map((d) => writtenOf(d, carried)), tickets: await before(organizationsOf(found)) });
  });
  schema.post(
    QUERY_WRITES.filter((op) => op !== 'findOneAndUpdate'),
    { document: false, query: true },
    async function (this: Query<unknown, unknown>) {
      const touched = touchedBy.get(this);
      if (touched) await announce(touched.written, touched.tickets);
    },
  );
  schema.post('findOneAndUpdate', { document: false, query: true }, async function (this: Query<unknown, unknown>, result: unknown) {
    const touched = touchedBy.get(this);
    if (!touched) return;
    const { written, tickets } = touched;
    await announce(
      written.length === 1 && returnedWhole(this, result, written[0]!.id) ? [{ ...written[0]!, stored: result }] : written,
      tickets,
    );
  });
  // A failed write may have done part of its work (a many-record update): its records are read back all the same.
  schema.post(
    QUERY_WRITES,
    { document: false, query: true },
    function (this: Query<unknown, unknown>, err: CallbackError, _res: unknown, next: (err?: CallbackError) => void) {
      const touched = touchedBy.get(this);
      (touched ? announce(touched.written, touched.tickets) : Promise.resolve()).then(
        () => next(err),
        () => next(err),
      );
    },
  );
  schema.pre('save', async function () {
    this.$locals.tickets = undefined;
    this.$locals.inserted = this.isNew;
    this.$locals.announce = this.isNew || matters(this.modifiedPaths());
    if (this.$locals.announce) this.$locals.tickets = await before(organizationsOf([this as unknown as Identified]));
  });
  schema.post('save', async function (doc) {
    if (doc.$locals.announce)
      await announce(
        [{ ...writtenOf(doc as unknown as Identified), ...(doc.$locals.inserted ? { stored: doc } : {}) }],
        doc.$locals.tickets as Tickets | undefined,
      );
  });
  schema.post('save', function (err: CallbackError, doc: Document, next: (err?: CallbackError) => void) {
    // Nothing was saved: the followers only hear that the write is over.
    announce([], doc.$locals.tickets as Tickets | undefined).then(
      () => next(err),
      () => next(err),
    );
  });
  schema.pre('deleteOne', { document: true, query: false }, async function () {
    this.$locals.tickets = await before(organizationsOf([this as unknown as Identified]));
  });
  schema.post('deleteOne', { document: true, query: false }, async function (doc) {
    await announce([writtenOf(doc as unknown as Identified, carried)], doc.$locals.tickets as Tickets | undefined);
  });
  schema.pre('insertMany', async function (docs: unknown) {
    const records = docs as Array<Partial<Identified>>;
    if (!records.length || !followed()) return;
    // Ids given here (as mongoose would) key the insert's tickets for its post hook.
    for (const r of records) r._id ??= new Types.ObjectId();
    const entry = { tickets: await before(organizationsOf(records)), ids: records.map((r) => String(r._id)) };
    for (const id of entry.ids) insertTickets.set(id, entry);
  });
  /** The tickets of the insert these records came from (any of them finds it). */
  const takeTickets = (docs: Array<Partial<Identified>>) => {
    const entry = docs.map((d) => insertTickets.get(String(d._id))).find(Boolean);
    for (const id of entry?.ids ?? []) insertTickets.delete(id);
    return entry?.tickets;
  };
  schema.post('insertMany', async function (docs: unknown) {
    const records = docs as Identified[];
    await announce(
      records.map((d) => ({ ...writtenOf(d), stored: d })),
      takeTickets(records),
    );
  });
  // An unordered insertMany that met duplicate keys (a re-run bulk import) inserted the rest: announce those.
  schema.post('insertMany', function (err: CallbackError, docs: unknown, next: (err?: CallbackError) => void) {
    const inserted = (err as { insertedDocs?: Identified[] }).insertedDocs ?? [];
    announce(
      inserted.map((d) => ({ ...writtenOf(d), stored: d })),
      takeTickets((docs ?? []) as Array<Partial<Identified>>),
    ).then(
      () => next(err),
      () => next(err),
    );
  });
}

/** Registers a follower of a model's writes, told before and after each; returns its removal. */
export function followWrites<Ticket>(model: Pick<Model<unknown>, 'schema' | 'modelName'>, follower: WriteFollower<Ticket>): () => void {
  const listeners = listenersOf.get(model.schema);
  if (!listeners) throw new Error(`${model.modelName} does not announce its writes`);
  listeners.add(follower);
  return () => listeners.delete(follower);
}
