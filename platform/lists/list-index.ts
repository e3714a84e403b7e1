/**
 * The list index: each list's order, filter values and items, per organization, kept in
 * Redis beside the store, so that a page and its total cost the same at any size of the
 * organization. FerretDB 1.24 sorts and counts every matching record itself (about 0.2 ms
 * of its CPU per record: 2 s for a page of an organization of 10,000 contracts); this
 * answers the same page from one sorted set (the order, `_id` breaking ties as in the
 * store) and one hash (the items), with the exact total.
 *
 * Keys, per list and organization (one hash tag, so a Redis cluster keeps them together):
 *   z:<combo>  sorted set of ids by the sort field, one per combination of the record's
 *              filter values (`all`, `status=active`, `status=active&type=nda`, ...);
 *   rows       hash id -> the list item (JSON, as the route answers it);
 *   texts      hash id -> what the list's search matches, lowercased (lists with `searchText`),
 *              so a search is answered here too, by one scan of the order's ids;
 *   meta       hash id -> {"v": version, "k": [combos]}, or {"v": ..., "d": 1} once deleted;
 *   built      the time the last complete build started; without it the store answers;
 *   epoch      the run id of the Redis that held the last complete build (see Consistency);
 *   fresh      lives REBUILD_AFTER_MS after a build; when gone, a build runs in the background;
 *   over       lives REBUILD_AFTER_MS once the list has more than LIST_INDEX_MAX_RECORDS
 *              records (or entries in meta, deleted ones' included): the rest is dropped, no
 *              write is kept and the store answers.
 *
 * Which lists are indexed is the features' choice (services/wiring.ts hands them to
 * `followListWrites`); this module knows none of them. Whether there is an index at all is
 * LIST_INDEX's: `auto` keeps it only on FerretDB, which sorts and counts in its own process;
 * MongoDB answers the same pages from compound indexes, so there no write is followed and
 * `listPage` answers from the store. Its callers never know which.
 *
 * Consistency. Every write to an indexed model is announced (models/writes.ts) and applied
 * here before its caller carries on: the record is read back from the store and its entry
 * replaced, unless the entry already holds a newer version (`updated_at`), so writes applied
 * out of order end in the stored state, and a deleted record stays deleted. A build (first
 * read of a list, or a day after the last) reads every record of the organization with the
 * same rule and drops entries of records no longer stored; writes during a build are
 * applied as usual.
 *
 * What can drift, and how a page knows. Before a write reaches the store it leaves a pending
 * mark there (models/pending-list-write.ts), removed once Redis has the write. A mark left
 * behind is a write whose process died between the store and Redis, or that found Redis
 * unreachable. Redis can also come back from a restart or a failover without its latest writes;
 * then its run id is no longer the one `epoch` holds. A page is answered from Redis as it is
 * when its list has no pending mark and the epoch holds: one read of the marks, whatever the
 * page. Otherwise its entries are checked against the store by id and version, and an entry
 * deleted or newer there is applied again as the store has it before the page is answered
 * (20 reads by id for a page of 20). A mark older than IN_FLIGHT_MS, or another epoch, also
 * starts a build, which ends both. Not seen: entries changed in Redis by hand (a RESTORE of
 * some keys), and writes that bypass the models (none in this code): after those, drop the
 * index (`dropListIndex`, or delete its keys) and the next read builds it.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { Types, trusted } from 'mongoose';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createRedis, redisKey } from '../redis';
import { isFerretDb } from '../mongo';
import { LockUnavailableError, withLock } from '../lock';
import { orgFilter } from '../../models/base';
import { followWrites, type Written } from '../../models/writes';
import { PendingListWrite } from '../../models/pending-list-write';
import { skipOf, type PageQuery } from './pagination';
import { storePage, type ListFilter, type ListModel, type ListPage, type ListSpec } from './lists';

export type ListIndexDeps = {
  redis: Redis;
  config: Pick<Config, 'REDIS_KEY_PREFIX' | 'LIST_INDEX' | 'LIST_INDEX_REDIS_URL' | 'LIST_INDEX_MAX_RECORDS'>;
  logger: Logger;
};

/** One process's list index: its Redis, and the lists it follows (only those are answered from it). */
interface ListIndex {
  redis: Redis;
  config: Pick<Config, 'REDIS_KEY_PREFIX' | 'LIST_INDEX_MAX_RECORDS'>;
  logger: Logger;
  followed: ReadonlySet<ListSpec>;
}

/** The index of each process's services (`followListWrites`); none: the store answers every list. */
const indexes = new WeakMap<ListIndexDeps, ListIndex>();

export const REBUILD_AFTER_MS = 24 * 3600_000;
/** Records per Redis call when many are applied at once. */
const BATCH = 500;
/** Store reads in flight when records are read back after a write. */
const READ_BACK = 8;
/** A write older than this when a build started cannot still be on its way to Redis. */
const IN_FLIGHT_MS = 60_000;
const DELETED = Number.MAX_SAFE_INTEGER;

const keys = (s: ListIndex, spec: ListSpec, organizationId: string) => {
  const base = redisKey(s.config, 'list', `{${spec.name}:${organizationId}}`);
  return {
    base,
    z: `${base}:z:`,
    rows: `${base}:rows`,
    texts: `${base}:texts`,
    meta: `${base}:meta`,
    built: `${base}:built`,
    epoch: `${base}:epoch`,
    fresh: `${base}:fresh`,
    over: `${base}:over`,
    lock: `${base}:lock`,
  };
};

// Applies entries: per record id, version, score, combos (JSON array; '' when deleted), item,
// search text (lowercased; '' for none). An entry replaces the stored one unless that one is newer.
// Returns the entries held (deleted records' marks included, so the bound holds memory too), or -1
// when the list is over its bound (KEYS[4]) and nothing is kept.
const APPLY = `
if redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
local meta, rows, texts, z = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
for i = 2, #ARGV, 6 do
  local id, v, score, combos, row, text = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  local old = redis.call('HGET', meta, id)
  local o = old and cjson.decode(old)
  if not o or o.v <= v then
    if o and o.k then for _, k in ipairs(o.k) do redis.call('ZREM', z .. k, id) end end
    if combos == '' then
      redis.call('HSET', meta, id, '{"v":' .. ARGV[i + 1] .. ',"d":1}')
      redis.call('HDEL', rows, id)
      redis.call('HDEL', texts, id)
    else
      for _, k in ipairs(cjson.decode(combos)) do redis.call('ZADD', z .. k, score, id) end
      redis.call('HSET', meta, id, '{"v":' .. ARGV[i + 1] .. ',"k":' .. combos .. '}')
      redis.call('HSET', rows, id, row)
      redis.call('HSET', texts, id, text)
    end
  end
end
return redis.call('HLEN', meta)`;

// Whether this Redis is the one that held the last build (KEYS[6]: epoch): a restart or a failover
// changes the run id.
const SAME_EPOCH = `
local function same_epoch()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') == redis.call('GET', KEYS[6]) and 1 or 0
end`;

// A page: false when not built, else { total, items, fresh, same epoch }. KEYS[5] (the texts) is
// unused here: passed so that both scripts name the same keys, all in one cluster slot.
const PAGE = `${SAME_EPOCH}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local ids
if ARGV[3] == '1' then ids = redis.call('ZREVRANGE', KEYS[2], ARGV[1], ARGV[2]) else ids = redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[2]) end
local items = {}
if #ids > 0 then items = redis.call('HMGET', KEYS[3], unpack(ids)) end
return { redis.call('ZCARD', KEYS[2]), items, redis.call('EXISTS', KEYS[4]), same_epoch() }`;

// A page of a search: the ids in order whose text holds ARGV[4] (lowercased, found as plain
// bytes), false when not built, else { total, items, fresh, same epoch } (total -1: an id without
// its text). About 2 ms per 10,000 records on this machine's Redis, instead of the store decoding each.
const SEARCH = `${SAME_EPOCH}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local from, to, needle = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[4]
local n, total, page = redis.call('ZCARD', KEYS[2]), 0, {}
for at = 0, n - 1, 1000 do
  local ids
  if ARGV[3] == '1' then ids = redis.call('ZREVRANGE', KEYS[2], at, at + 999) else ids = redis.call('ZRANGE', KEYS[2], at, at + 999) end
  if #ids == 0 then break end
  local texts = redis.call('HMGET', KEYS[5], unpack(ids))
  for j = 1, #ids do
    local t = texts[j]
    if not t then return { -1, {}, 0, 0 } end
    if string.find(t, needle, 1, true) then
      if total >= from and total <= to then page[#page + 1] = ids[j] end
      total = total + 1
    end
  end
end
local items = {}
if #page > 0 then items = redis.call('HMGET', KEYS[3], unpack(page)) end
return { total, items, redis.call('EXISTS', KEYS[4]), same_epoch() }`;

const sha = (lua: string) => createHash('sha1').update(lua).digest('hex');
const SCRIPTS = {
  apply: { lua: APPLY, sha: sha(APPLY) },
  page: { lua: PAGE, sha: sha(PAGE) },
  search: { lua: SEARCH, sha: sha(SEARCH) },
};

async function run(redis: Redis, script: { lua: string; sha: string }, keyList: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keyList.length, ...keyList, ...args);
  } catch (err) {
    if (!String(err).includes('NOSCRIPT')) throw err;
    return redis.eval(script.lua, keyList.length, ...keyList, ...args);
  }
}

/** What the index reads of a record. */
interface IndexedRecord {
  _id: Types.ObjectId;
  get(path: string): unknown;
}

/** A filter value as the index keys it: strings, numbers, ObjectIds (hex), dates (ISO). */
function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Types.ObjectId) return v.toHexString();
  if (v instanceof Date) return v.toISOString();
  return null;
}

/** The record's filter values: its `filters` fields and `derived` ones. */
function valuesOf(spec: ListSpec, doc: IndexedRecord): Record<string, string> {
  const values: Record<string, string | null> = Object.fromEntries(spec.filters.map((f) => [f, text(doc.get(f))]));
  for (const [name, derive] of Object.entries(spec.derived ?? {})) values[name] = derive(doc);
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== null));
}

/** The sorted set of a combination of filter values. */
export const comboOf = (values: Record<string, string>) =>
  Object.keys(values)
    .sort()
    .map((k) => `${k}=${encodeURIComponent(values[k]!)}`)
    .join('&') || 'all';

/** Every combination of a record's filter values (2^n sets for n filters). */
function combosOf(values: Record<string, string>): string[] {
  const subsets = Object.keys(values).reduce<string[][]>((all, k) => [...all, ...all.map((c) => [...c, k])], [[]]);
  return subsets.map((names) => comboOf(Object.fromEntries(names.map((n) => [n, values[n]!]))));
}

function scoreOf(spec: ListSpec, doc: IndexedRecord): string {
  const v: unknown = doc.get(spec.sort.field);
  // MongoDB orders a missing or null value below every date: first ascending, last descending.
  if (v === null || v === undefined) return '-inf';
  return String(v instanceof Date ? v.getTime() : Number(v));
}

const versionOf = (doc: IndexedRecord) => {
  const at = doc.get('updated_at') ?? doc.get('created_at');
  return at instanceof Date ? at.getTime() : 0;
};

type Entry = Array<string | number>;
const entryOf = (spec: ListSpec, doc: IndexedRecord): Entry => [
  String(doc._id),
  versionOf(doc),
  scoreOf(spec, doc),
  JSON.stringify(combosOf(valuesOf(spec, doc))),
  JSON.stringify(spec.row(doc)),
  spec.searchText ? spec.searchText(doc).toLowerCase() : '',
];
const deletedEntry = (id: string, version = DELETED): Entry => [id, version, 0, '', '', ''];

/** Applies entries; false when the list is over its bound, whose entries are then dropped. */
async function apply(s: ListIndex, spec: ListSpec, organizationId: string, entries: Entry[]): Promise<boolean> {
  const k = keys(s, spec, organizationId);
  for (let i = 0; i < entries.length; i += BATCH) {
    const held = (await run(
      s.redis,
      SCRIPTS.apply,
      [k.meta, k.rows, k.texts, k.over],
      [k.z, ...entries.slice(i, i + BATCH).flat()],
    )) as number;
    if (held < 0) return false;
    if (held > s.config.LIST_INDEX_MAX_RECORDS) {
      await overBound(s, spec, organizationId, held);
      return false;
    }
  }
  return true;
}

/**
 * Gives up one organization's index of a list that grew past LIST_INDEX_MAX_RECORDS: marks it
 * (no later write is kept, APPLY checks the mark) and drops what it holds. A day later the next
 * read tries again, in case the list shrank.
 */
async function overBound(s: ListIndex, spec: ListSpec, organizationId: string, records: number): Promise<void> {
  await s.redis.set(keys(s, spec, organizationId).over, String(records), 'PX', REBUILD_AFTER_MS);
  await dropEntries(s, spec, organizationId);
  s.logger.info(
    { list: spec.name, organizationId, records, bound: s.config.LIST_INDEX_MAX_RECORDS },
    'list over the list index bound; the store answers it',
  );
}

/** The pending marks' name of one organization's list: its keys' base, so each index has its own. */
const markOf = (s: ListIndex, spec: ListSpec, organizationId: string) => keys(s, spec, organizationId).base;

/** Marks a write to come in the store (see Consistency); returns the marks. */
async function markPending(s: ListIndex, spec: ListSpec, organizationIds: Types.ObjectId[]): Promise<Types.ObjectId[]> {
  const marks = await PendingListWrite.insertMany(
    organizationIds.map((o) => ({ list: markOf(s, spec, o.toHexString()) })),
    { lean: true },
  );
  return marks.map((m) => m._id);
}

/**
 * Applies writes to one list's records (each read back from the store), then removes the write's
 * pending marks; a mark stays when Redis did not take the write.
 */
async function follow(s: ListIndex, spec: ListSpec, written: Written[], marks: Types.ObjectId[]): Promise<void> {
  const byOrg = new Map<string, Entry[]>();
  const queue = [...written];
  const readBack = async () => {
    for (let w = queue.shift(); w; w = queue.shift()) {
      // A record the write returned as it left it is taken as is; any other is read back.
      const doc = (w.stored ?? (await spec.model.findOne({ _id: w.id }))) as IndexedRecord | null;
      const organizationId = ((doc?.get('organization_id') as Types.ObjectId | undefined) ?? w.organizationId)?.toHexString();
      if (!organizationId) continue;
      const entries = byOrg.get(organizationId) ?? [];
      entries.push(doc ? entryOf(spec, doc) : deletedEntry(String(w.id)));
      byOrg.set(organizationId, entries);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_BACK, queue.length) }, readBack));
  let applied = true;
  for (const [organizationId, entries] of byOrg) {
    try {
      await apply(s, spec, organizationId, entries);
    } catch (err) {
      applied = false;
      s.logger.warn(
        { err: String(err), list: spec.name, organizationId },
        'list index not updated; its pages are checked against the store until it is rebuilt',
      );
    }
  }
  if (applied) await Promise.all(marks.map((_id) => PendingListWrite.deleteOne({ _id })));
}

/** Whether LIST_INDEX wants an index against this store. */
async function indexWanted(s: ListIndexDeps): Promise<boolean> {
  if (s.config.LIST_INDEX !== 'auto') return s.config.LIST_INDEX === 'on';
  try {
    return await isFerretDb();
  } catch (err) {
    s.logger.warn({ err: String(err) }, 'store engine not known; the store answers every list');
    return false;
  }
}

/** The index's own Redis (LIST_INDEX_REDIS_URL), ready or given up on after its connect timeout: until then the store answers. */
async function ownRedis(s: ListIndexDeps): Promise<Redis> {
  const redis = createRedis({ REDIS_URL: s.config.LIST_INDEX_REDIS_URL }, s.logger);
  const timeout = AbortSignal.timeout(2000);
  await once(redis, 'ready', { signal: timeout }).catch(() => undefined);
  return redis;
}

/**
 * Starts this process's list index, when LIST_INDEX wants one: keeps the index of each of
 * `specs` current with this process's writes (their models must announce them), and answers
 * them from it in `listPage`. Returns the unsubscription.
 */
export async function followListWrites(s: ListIndexDeps, specs: readonly ListSpec[]): Promise<() => void> {
  if (!(await indexWanted(s))) {
    s.logger.info({ LIST_INDEX: s.config.LIST_INDEX }, 'list index off; the store answers every list');
    return () => undefined;
  }
  const redis = s.config.LIST_INDEX_REDIS_URL ? await ownRedis(s) : s.redis;
  const index: ListIndex = { redis, config: s.config, logger: s.logger, followed: new Set(specs) };
  indexes.set(s, index);
  const stops = specs.map((spec) =>
    followWrites(spec.model, {
      before: (organizationIds) => markPending(index, spec, organizationIds),
      after: async (written, marks) => {
        await follow(index, spec, written, marks ?? []).catch((err: unknown) => {
          s.logger.warn({ err: String(err), list: spec.name }, 'list index: records not read back');
        });
      },
    }),
  );
  return () => {
    stops.forEach((stop) => stop());
    indexes.delete(s);
    if (redis !== s.redis) redis.disconnect();
  };
}

/** The run id of the Redis server: another after a restart or a failover. */
async function runId(redis: Redis): Promise<string> {
  const id = /run_id:(\w+)/.exec(await redis.info('server'))?.[1];
  if (!id) throw new Error('Redis reports no run_id');
  return id;
}

/**
 * Builds one organization's index of a list from the store, if no other process is at it and
 * the list is within its bound. Returns false when another holds the build or the list is over
 * the bound.
 */
async function buildListIndex(s: ListIndex, spec: ListSpec, organizationId: string): Promise<boolean> {
  const k = keys(s, spec, organizationId);
  if (await s.redis.exists(k.over)) return false;
  try {
    return await withLock(s.redis, k.lock, { ttlMs: 600_000, waitMs: 0 }, async () => {
      const started = Date.now();
      const epoch = await runId(s.redis);
      const seen = new Set<string>();
      let batch: Entry[] = [];
      for await (const doc of spec.model.find(orgFilter(organizationId)).cursor({ batchSize: 1000 })) {
        const record = doc as IndexedRecord;
        seen.add(String(record._id));
        if (seen.size > s.config.LIST_INDEX_MAX_RECORDS) {
          await overBound(s, spec, organizationId, seen.size);
          return false;
        }
        batch.push(entryOf(spec, record));
        if (batch.length === BATCH) {
          if (!(await apply(s, spec, organizationId, batch))) return false;
          batch = [];
        }
      }
      if (!(await apply(s, spec, organizationId, batch))) return false;
      // Entries of records gone from the store whose removal never reached Redis; one written
      // after the build started is newer than this and stays.
      const stale = (await s.redis.hkeys(k.meta)).filter((id) => !seen.has(id));
      await apply(
        s,
        spec,
        organizationId,
        stale.map((id) => deletedEntry(id, started - IN_FLIGHT_MS)),
      );
      await s.redis.multi().set(k.built, String(started)).set(k.epoch, epoch).set(k.fresh, '1', 'PX', REBUILD_AFTER_MS).exec();
      // Marks of writes that began long enough before the build to be over: the build read what they did.
      await PendingListWrite.deleteMany({
        list: markOf(s, spec, organizationId),
        _id: trusted({ $lt: Types.ObjectId.createFromTime(Math.floor((started - IN_FLIGHT_MS) / 1000)) }),
      });
      s.logger.info({ list: spec.name, organizationId, records: seen.size, ms: Date.now() - started }, 'list index built');
      return true;
    });
  } catch (err) {
    if (err instanceof LockUnavailableError) return false;
    throw err;
  }
}

/** The index's values for a filter, or null when part of it has none (a condition it does not keep). */
function indexValues(spec: ListSpec, filter: ListFilter): Record<string, string> | null {
  const searchable = filter.search !== undefined && spec.searchText !== undefined;
  if (filter.where && !filter.derived && !searchable) return null;
  const values: Record<string, string> = { ...filter.derived };
  for (const [field, value] of Object.entries(filter.equal ?? {})) {
    const t = text(value);
    if (t === null || !spec.filters.includes(field)) return null;
    values[field] = t;
  }
  return values;
}

async function readPage(
  s: ListIndex,
  spec: ListSpec,
  organizationId: string,
  combo: string,
  page: PageQuery,
  search?: string,
  repaired = false,
): Promise<ListPage | null> {
  const k = keys(s, spec, organizationId);
  const start = skipOf(page);
  const range = [start, start + page.page_size - 1, spec.sort.order === -1 ? '1' : '0'];
  // Read before the page: a write already in the store then either shows its mark or is in Redis.
  const pending = await PendingListWrite.findOne({ list: markOf(s, spec, organizationId) }, { _id: 1 })
    .sort({ _id: 1 })
    .lean();
  const answer = (
    search === undefined
      ? await run(s.redis, SCRIPTS.page, [k.built, k.z + combo, k.rows, k.fresh, k.texts, k.epoch], range)
      : await run(s.redis, SCRIPTS.search, [k.built, k.z + combo, k.rows, k.fresh, k.texts, k.epoch], [...range, search.toLowerCase()])
  ) as [number, Array<string | null>, number, number] | null;
  if (!answer) return null;
  const [total, items, fresh, sameEpoch] = answer;
  if (total < 0 || items.some((item) => item === null)) {
    // An id without its item: the index is damaged; the store answers until a build.
    await s.redis.del(k.built);
    return null;
  }
  const rows = items.map((item) => JSON.parse(item!) as { id: string });
  const settled = !pending && sameEpoch === 1;
  const overdue = pending && Date.now() - pending._id.getTimestamp().getTime() > IN_FLIGHT_MS;
  if (!fresh || !sameEpoch || overdue)
    void buildListIndex(s, spec, organizationId).catch((err: unknown) =>
      s.logger.warn({ err: String(err), list: spec.name }, 'list index: background build failed'),
    );
  const stale = settled ? [] : await staleEntries(s, spec, organizationId, rows);
  if (stale.length) {
    // Entries Redis kept through a partial loss, or writes that never reached it: those records
    // are applied again as the store has them, and the page read again; if it is still behind,
    // the store answers until a build.
    s.logger.warn({ list: spec.name, organizationId, stale: stale.length }, 'list index behind the store; repairing');
    const current = await Promise.all(stale.map((id) => currentEntry(spec, organizationId, id)));
    await apply(s, spec, organizationId, current);
    // A removal takes an entry out of the sets its meta names; one whose meta was lost with
    // it is still in this page's set.
    const removed = current.filter((e) => e[3] === '').map((e) => String(e[0]));
    if (removed.length) await s.redis.zrem(k.z + combo, ...removed);
    if (repaired) {
      await s.redis.del(k.built);
      return null;
    }
    return readPage(s, spec, organizationId, combo, page, search, true);
  }
  return { total, items: rows };
}

const inOrganization = (organizationId: string, id: string) => ({
  _id: new Types.ObjectId(id),
  organization_id: new Types.ObjectId(organizationId),
});

/**
 * The entries of a page that the store has deleted or holds newer: one read by id per entry (an
 * equality every store answers from an index; FerretDB would scan for an `$in`), so such a page
 * costs about 20 point reads more and never shows a deleted or older record.
 */
async function staleEntries(s: ListIndex, spec: ListSpec, organizationId: string, rows: Array<{ id: string }>): Promise<string[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const metas = await s.redis.hmget(keys(s, spec, organizationId).meta, ...ids);
  const stored = await Promise.all(
    ids.map(
      (id) => spec.model.findOne(inOrganization(organizationId, id), { updated_at: 1, created_at: 1 }) as Promise<IndexedRecord | null>,
    ),
  );
  return ids.filter((id, i) => {
    const held = metas[i] ? (JSON.parse(metas[i]) as { v: number; d?: 1 }) : null;
    const doc = stored[i];
    return !doc || !held || held.d === 1 || versionOf(doc) > held.v;
  });
}

/** A record's entry as the store has it now, or its removal. */
async function currentEntry(spec: ListSpec, organizationId: string, id: string): Promise<Entry> {
  const doc: IndexedRecord | null = await spec.model.findOne(inOrganization(organizationId, id));
  return doc ? entryOf(spec, doc) : deletedEntry(id);
}

/**
 * One page of a list and its total: from the index when this process has one (LIST_INDEX) and
 * follows the list, the filter allows, the list is within its bound and the index is built
 * (building it first when no other process is at it), else from the store.
 */
export async function listPage<M extends ListModel>(
  s: ListIndexDeps,
  spec: ListSpec<M>,
  organizationId: string,
  filter: ListFilter,
  page: PageQuery,
): Promise<ListPage> {
  const generic: ListSpec = spec;
  const index = indexes.get(s);
  const values = index?.followed.has(generic) ? indexValues(generic, filter) : null;
  if (index && values) {
    const combo = comboOf(values);
    try {
      const read = () => readPage(index, generic, organizationId, combo, page, generic.searchText ? filter.search : undefined);
      const answer = (await read()) ?? ((await buildListIndex(index, generic, organizationId)) ? await read() : null);
      if (answer) return answer;
    } catch (err) {
      s.logger.warn({ err: String(err), list: spec.name }, 'list index unavailable; the store answers');
    }
  }
  return storePage(spec, organizationId, filter, page);
}

/** Drops one organization's entries of a list (not its bound's mark). */
async function dropEntries(s: ListIndex, spec: ListSpec, organizationId: string): Promise<void> {
  const k = keys(s, spec, organizationId);
  const combos = new Set((await s.redis.hvals(k.meta)).flatMap((m) => (JSON.parse(m) as { k?: string[] }).k ?? []));
  await s.redis.del(k.built, k.epoch, k.fresh, k.rows, k.texts, k.meta, ...[...combos].map((c) => k.z + c));
}

/** Drops one organization's index of a list (repairs, tests): the next read builds it again. */
export async function dropListIndex(s: ListIndexDeps, spec: ListSpec, organizationId: string): Promise<void> {
  const index = indexes.get(s);
  if (index) await dropEntries(index, spec, organizationId);
}
