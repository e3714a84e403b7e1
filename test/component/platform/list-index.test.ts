/**
 * The list index (platform/lists/list-index.ts): pages and totals from Redis equal what the store
 * answers, after writes from routes, activities and bulk inserts, and after repairs.
 */
import { expect } from 'chai';
import { Types, trusted } from 'mongoose';
import { Redis } from 'ioredis';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { testEnv, withSecondApi } from '../../support/env';
import { startRedis, waitFor } from '../../support/processes';
import { dropListIndex, listPage } from '../../../platform/lists/list-index';
import { followIndexedLists, INDEXED_LISTS } from '../../../services/wiring';
import { isFerretDb } from '../../../platform/mongo';
import type { Config } from '../../../platform/config';
import { storePage, type ListFilter, type ListSpec } from '../../../platform/lists/lists';
import { Contract, contractList, type ContractDoc } from '../../../models/contract';
import { activityList } from '../../../models/event';
import { Vendor, vendorList } from '../../../models/vendor';
import { WebhookDelivery, deliveryList } from '../../../models/webhook-delivery';
import { PendingListWrite } from '../../../models/pending-list-write';
import { activityFilter } from '../../../services/analytics/activity-feed';
import { contractListFilter } from '../../../services/contracts/list-contracts';
import { redisKey } from '../../../platform/redis';
import { makeNewContractsSearchable } from '../../../services/search/reflect-contracts';

interface Item {
  id: string;
  status: string;
  vendor_id: string | null;
  title: string;
  counterparty: string;
}
interface Page {
  contracts: Item[];
  total: number;
}

const PAGES = [
  { page: 1, page_size: 7 },
  { page: 2, page_size: 7 },
  { page: 3, page_size: 20 },
  { page: 9, page_size: 7 },
];

/** The index's answer and the store's, side by side, for the same page. */
async function bothAnswers(spec: ListSpec, organizationId: string, filter: ListFilter, page: { page: number; page_size: number }) {
  const [indexed, stored] = await Promise.all([
    listPage(testEnv().services, spec, organizationId, filter, page),
    storePage(spec, organizationId, filter, page),
  ]);
  // Through JSON, as the route answers (dates become strings).
  return { indexed: JSON.parse(JSON.stringify(indexed)) as unknown, stored: JSON.parse(JSON.stringify(stored)) as unknown };
}

async function expectSameAsStore(spec: ListSpec, organizationId: string, filters: ListFilter[]) {
  for (const filter of filters) {
    for (const page of PAGES) {
      const { indexed, stored } = await bothAnswers(spec, organizationId, filter, page);
      expect(indexed, `${spec.name} ${JSON.stringify(filter.equal ?? filter.derived ?? {})} page ${page.page}`).to.deep.equal(stored);
    }
  }
}

const CONTRACT_FILTERS: ListFilter[] = [
  {},
  { equal: { status: 'draft' } },
  { equal: { status: 'active' } },
  { equal: { type: 'nda' } },
  { equal: { status: 'completed', type: 'service_agreement' } },
  // Searches (title or counterparty, case-insensitive, characters taken literally).
  contractListFilter({ search: 'party 1' }),
  contractListFilter({ status: 'active', search: 'IMPORTED' }),
  contractListFilter({ type: 'nda', search: 'contract' }),
  contractListFilter({ search: 'übersee' }),
  contractListFilter({ search: '.*' }),
  contractListFilter({ search: 'nothing like this' }),
];

describe('list index', function () {
  this.timeout(120000);
  let owner: TestUser;
  const list = (query = '') => api<Page>('GET', `/contracts${query}`, { token: owner.token });

  before(async () => {
    owner = await signUp();
    // Built while the organization is empty; every later write is followed.
    expect((await list()).body.total).to.equal(0);
    const statuses = ['draft', 'active', 'completed', 'expired'] as const;
    const bulk = await Contract.insertMany(
      Array.from({ length: 24 }, (_, i) => ({
        organization_id: new Types.ObjectId(owner.organizationId),
        title: `Imported ${i}`,
        type: i % 3 ? 'service_agreement' : 'nda',
        counterparty: i === 7 ? 'ÜBERSEE Handels GmbH' : `Party ${i % 5}`,
        status: statuses[i % 4],
      })),
    );
    // GET /contracts answers from the search index: a bulk load writes its documents itself, as an import does.
    await makeNewContractsSearchable(testEnv().services, bulk as unknown as ContractDoc[]);
    // Through the API at once (the rate limit allows 60 requests a minute per user).
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const { body } = await api<Item>('POST', '/contracts', {
          token: owner.token,
          body: { title: `Contract ${i}`, type: i % 2 ? 'service_agreement' : 'nda', counterparty: `Party ${i}` },
        });
        if (i < 6) await api('PUT', `/contracts/${body.id}`, { token: owner.token, body: { status: i % 2 ? 'active' : 'completed' } });
      }),
    );
  });

  it('answers every filter and page of contracts as the store does, concurrent writes included', async () => {
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
    expect((await list('?status=active')).body.total).to.equal(6 + 3);
  });

  it('follows status changes and deletes', async () => {
    const { body: page } = await list('?status=draft&page_size=100');
    await Promise.all(
      page.contracts.slice(0, 3).map((c) => api('PUT', `/contracts/${c.id}`, { token: owner.token, body: { status: 'active' } })),
    );
    await api('DELETE', `/contracts/${page.contracts[3]!.id}`, { token: owner.token });
    expect((await list('?status=draft')).body.total).to.equal(page.total - 4);
    expect((await list('?status=active')).body.total).to.equal(9 + 3);
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
  });

  it('follows writes that are not saves: a vendor delete clears vendor_id on its contracts (updateMany)', async () => {
    const { body: vendor } = await api<{ id: string }>('POST', '/vendors', { token: owner.token, body: { name: 'Short-lived Ltd' } });
    const { body: linked } = await api<Item>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Linked', type: 'nda', counterparty: 'Short-lived Ltd', vendor_id: vendor.id },
    });
    expect((await list()).body.contracts.find((c) => c.id === linked.id)!.vendor_id).to.equal(vendor.id);
    expect((await api('DELETE', `/vendors/${vendor.id}`, { token: owner.token })).status).to.equal(204);
    expect((await list()).body.contracts.find((c) => c.id === linked.id)!.vendor_id).to.equal(null);
    // Each write left its pending mark before the store and removed it once Redis had it: none is left.
    const names = ['contracts', 'vendors'].map((l) => redisKey(testEnv().config, 'list', `{${l}:${owner.organizationId}}`));
    const marks = await PendingListWrite.find({ list: trusted({ $in: names }) });
    expect(marks).to.deep.equal([]);
  });

  it('orders records with the same creation time by id, as the store does (bulk inserts are followed too)', async () => {
    const at = new Date();
    const tied = await Contract.insertMany(
      Array.from({ length: 6 }, (_, i) => ({
        organization_id: new Types.ObjectId(owner.organizationId),
        title: `Same instant ${i}`,
        type: 'nda',
        counterparty: 'Tie Ltd',
        created_at: at,
      })),
    );
    await makeNewContractsSearchable(testEnv().services, tied);
    const { body } = await list('?page_size=6');
    expect(body.contracts.map((c) => c.title).every((t) => t.startsWith('Same instant'))).to.equal(true);
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
  });

  // GET /contracts is answered by Elasticsearch now; the index still keeps contracts, read here directly.
  const indexedPage = (filter: ListFilter, page_size = 1) =>
    listPage(testEnv().services, contractList, owner.organizationId, filter, { page: 1, page_size }) as Promise<{
      items: Item[];
      total: number;
    }>;

  it('drops a record a dead writer removed from the store but not from Redis, and its old mark starts a build that clears it', async () => {
    const before = await indexedPage({});
    const gone = before.items[0]!.id;
    const list = redisKey(testEnv().config, 'list', `{contracts:${owner.organizationId}}`);
    // A writer that died after the store and before Redis: its pending mark, then the delete, and nothing more.
    await PendingListWrite.create({ list });
    await Contract.collection.deleteOne({ _id: new Types.ObjectId(gone) });
    const checked = await indexedPage({});
    expect(checked.items[0]!.id).to.not.equal(gone);
    expect(checked.total).to.equal(before.total - 1);
    // A mark older than any write in flight: the page starts a build, which ends with the mark gone.
    await PendingListWrite.deleteMany({ list });
    await PendingListWrite.create({ _id: Types.ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 120), list });
    await indexedPage({});
    for (let i = 0; i < 100 && (await PendingListWrite.countDocuments({ list })) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await PendingListWrite.countDocuments({ list })).to.equal(0);
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
  });

  it('leaves no pending mark after a failed write: a duplicate key, a bulk insert that met one, an update the store refuses', async () => {
    const organization_id = new Types.ObjectId(owner.organizationId);
    const delivery = () => ({
      organization_id,
      subscription_id: new Types.ObjectId(),
      event_id: new Types.ObjectId(),
      event: 'contract.created',
      body: '{}',
    });
    const first = await WebhookDelivery.create(delivery());
    const again = { ...first.toObject(), _id: new Types.ObjectId() };
    /** The error a write ends with. */
    const failure = (write: Promise<unknown>) =>
      write.then(
        () => null,
        (err: unknown) => String(err),
      );
    expect(await failure(WebhookDelivery.create(again))).to.match(/duplicate key/i);
    const fresh = delivery();
    expect(await failure(WebhookDelivery.insertMany([again, fresh], { ordered: false }))).to.match(/duplicate key/i);
    const vendor = await Vendor.create({ organization_id, name: 'Refused Ltd' });
    expect(await failure(Vendor.updateOne({ _id: vendor._id, organization_id }, { $inc: { name: 1 } }))).to.be.a('string');
    const lists = ['webhook-deliveries', 'vendors'].map((l) => redisKey(testEnv().config, 'list', `{${l}:${owner.organizationId}}`));
    expect(await PendingListWrite.find({ list: trusted({ $in: lists }) })).to.deep.equal([]);
    // What the bulk insert did insert is listed.
    await expectSameAsStore(deliveryList, owner.organizationId, [{}]);
    const { indexed } = await bothAnswers(deliveryList, owner.organizationId, {}, { page: 1, page_size: 100 });
    expect(JSON.stringify(indexed)).to.include(String(fresh.subscription_id));
  });

  it('builds a dropped index again from the store', async () => {
    const before = await indexedPage({});
    await dropListIndex(testEnv().services, contractList, owner.organizationId);
    expect((await indexedPage({})).total).to.equal(before.total);
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
  });

  it('answers without a store check while no write is pending, so an entry changed behind its back shows', async () => {
    // What makes the settled page cheap: a delete that bypasses the models (none in the service) is not seen until a build.
    const before = await indexedPage({});
    const _id = new Types.ObjectId(before.items[0]!.id);
    const doc = await Contract.collection.findOne({ _id });
    await Contract.collection.deleteOne({ _id });
    expect((await indexedPage({})).items[0]!.id).to.equal(String(_id));
    await Contract.collection.insertOne(doc!);
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
  });

  it('answers a search from Redis too, as the store does, and an index without search texts is built again', async () => {
    const search = (q: string) => indexedPage(contractListFilter({ search: q }), 100);
    const before = await search('party');
    expect(before.total).to.be.greaterThan(0);
    const target = before.items[0]!;
    const _id = new Types.ObjectId(target.id);
    // Renamed behind the index's back (no write announcement, same version): the index still finds it, so the index answered.
    await Contract.collection.updateOne({ _id }, { $set: { title: 'Renamed', counterparty: 'Renamed Ltd' } });
    expect((await search('party')).items.map((c) => c.id)).to.include(target.id);
    await Contract.collection.updateOne({ _id }, { $set: { title: target.title, counterparty: target.counterparty } });
    // An index from before search texts existed: the search notices, and the index is built again with them.
    const { redis, config } = testEnv().services;
    const texts = redisKey(config, 'list', `{contracts:${owner.organizationId}}`) + ':texts';
    await redis.del(texts);
    expect((await search('party')).total).to.equal(before.total);
    expect(await redis.hlen(texts)).to.be.greaterThan(0);
    await expectSameAsStore(contractList, owner.organizationId, CONTRACT_FILTERS);
  });

  it('answers the activity feed, by type and by category of types, as the store does', async () => {
    const filters = [{}, activityFilter('contract.created'), activityFilter('contract'), activityFilter('vendor')];
    await expectSameAsStore(activityList, owner.organizationId, filters);
    const { indexed } = await bothAnswers(activityList, owner.organizationId, activityFilter('contract'), { page: 1, page_size: 100 });
    expect((indexed as { total: number }).total).to.be.greaterThan(8);
  });

  it('answers every indexed list as the store does, and keeps organizations apart', async () => {
    const other = await signUp();
    await api('POST', '/contracts', { token: other.token, body: { title: 'Elsewhere', type: 'nda', counterparty: 'Other Ltd' } });
    for (const spec of INDEXED_LISTS) {
      await expectSameAsStore(spec, owner.organizationId, [{}]);
      await expectSameAsStore(spec, other.organizationId, [{}]);
    }
    expect((await api<Page>('GET', '/contracts', { token: other.token })).body.contracts.map((c) => c.title)).to.deep.equal(['Elsewhere']);
  });

  it('answers a list this process does not follow from the store, and keeps no index of it', async () => {
    // The contract list under another name: no follower keeps its entries current, so an index of it could only go stale.
    const unfollowed: ListSpec = { ...contractList, name: 'contracts-unfollowed' };
    const { indexed, stored } = await bothAnswers(unfollowed, owner.organizationId, {}, { page: 1, page_size: 20 });
    expect((stored as { total: number }).total).to.be.greaterThan(0);
    expect(indexed).to.deep.equal(stored);
    const { redis, config } = testEnv().services;
    expect(await redis.keys(`${redisKey(config, 'list', `{contracts-unfollowed:${owner.organizationId}}`)}*`)).to.deep.equal([]);
    expect(await redis.keys(`${redisKey(config, 'list', `{contracts:${owner.organizationId}}`)}*`)).to.not.deep.equal([]);
  });
});

describe('list index after a partial Redis loss', function () {
  this.timeout(120000);

  /** Three vendors, then a delete and a rename; `lose` is what befalls Redis between the writes and the page. */
  async function afterLoss(lose: (saved: Array<{ key: string; dump: Buffer | null }>, organizationId: string) => Promise<void>) {
    const owner = await signUp();
    const vendors = () => api<{ vendors: Array<{ id: string; name: string }>; total: number }>('GET', '/vendors', { token: owner.token });
    const made = await Promise.all(
      ['Acme Ltd', 'Globex Corp', 'Initech LLC'].map((name) =>
        api<{ id: string }>('POST', '/vendors', { token: owner.token, body: { name, category: 'software' } }),
      ),
    );
    expect((await vendors()).body.total).to.equal(3);
    // What Redis held before the writes below: every key of this organization's vendor list.
    const { redis, config } = testEnv().services;
    const base = redisKey(config, 'list', `{vendors:${owner.organizationId}}`);
    const saved = await Promise.all((await redis.keys(`${base}:*`)).map(async (key) => ({ key, dump: await redis.dumpBuffer(key) })));
    const [gone, renamed] = [made[0]!.body.id, made[1]!.body.id];
    expect((await api('DELETE', `/vendors/${gone}`, { token: owner.token })).status).to.equal(204);
    expect((await api('PUT', `/vendors/${renamed}`, { token: owner.token, body: { name: 'Globex Renamed' } })).status).to.equal(200);
    await lose(saved, owner.organizationId);

    const listed = await vendors();
    expect(listed.body.vendors.map((v) => v.id)).to.not.include(gone);
    expect(listed.body.vendors.find((v) => v.id === renamed)?.name).to.equal('Globex Renamed');
    expect(listed.body.total).to.equal(2);
    expect((await api('GET', `/vendors/${gone}`, { token: owner.token })).status).to.equal(404);
    // Repaired: the next pages come from the index and agree with the store.
    await expectSameAsStore(vendorList, owner.organizationId, [{}]);
  }

  it('never lists a deleted record, nor one the store holds newer, after Redis comes back from a snapshot (a restart: another run id)', async () => {
    await afterLoss(async (saved) => {
      const { redis } = testEnv().services;
      for (const { key, dump } of saved) if (dump) await redis.restore(key, 0, dump, 'REPLACE');
      // The snapshot was taken by the Redis run before the restart.
      for (const { key } of saved) if (key.endsWith(':epoch')) await redis.set(key, 'a-previous-run');
    });
  });

  it('never lists a deleted record, nor one the store holds newer, when the writes never reached Redis (their marks stay)', async () => {
    await afterLoss(async (saved, organizationId) => {
      const { redis } = testEnv().services;
      // Redis unreachable for those writes: it holds what it held before them, and their marks stay in the store.
      for (const { key, dump } of saved) if (dump) await redis.restore(key, 0, dump, 'REPLACE');
      await PendingListWrite.create({ list: redisKey(testEnv().config, 'list', `{vendors:${organizationId}}`) });
    });
  });
});

describe('list index: when it runs, where it lives, how long a list it keeps', function () {
  this.timeout(120000);
  // Every list a user meets that the index may answer.
  const LISTS = [
    '/vendors?page_size=2',
    '/vendors?page=2&page_size=2',
    '/vendors?page=3&page_size=2',
    '/documents',
    '/signatures',
    '/compliance/tasks',
    '/webhooks/deliveries',
    '/analytics/activity?page_size=3',
    '/analytics/activity?page=2&page_size=3',
  ];
  let run = 0;
  /** A second API on the run's engines, as a second process would start: its own key prefix, its list index started by wireProcess' follower. */
  const withIndexApi = (overrides: Partial<Config>, fn: (base: string, prefix: string) => Promise<void>) => {
    const prefix = `${testEnv().config.REDIS_KEY_PREFIX}-second-${++run}`;
    return withSecondApi({ REDIS_KEY_PREFIX: prefix, ...overrides }, (base) => fn(base, prefix), {}, [followIndexedLists]);
  };
  const vendorsOf = async (owner: TestUser, names: string[], base?: string) => {
    for (const name of names) {
      const res = await api('POST', '/vendors', { token: owner.token, body: { name, category: 'software' }, base });
      expect(res.status).to.equal(201);
    }
  };
  /** Each list as the main API (index on: the store is FerretDB) and `base` answer it. */
  async function expectSameLists(owner: TestUser, base: string, paths = LISTS) {
    for (const path of paths) {
      const [main, second] = await Promise.all([api('GET', path, { token: owner.token }), api('GET', path, { token: owner.token, base })]);
      expect(main.status, path).to.equal(200);
      expect(second.body, path).to.deep.equal(main.body);
    }
  }
  const keysOf = (redis: Redis, base: string) => redis.keys(`${base}*`).then((keys) => keys.sort());

  it('is on under LIST_INDEX=auto against FerretDB, the store of this stack', async () => {
    expect(await isFerretDb()).to.equal(true);
    const owner = await signUp();
    await vendorsOf(owner, ['Auto Ltd']);
    await withIndexApi({ LIST_INDEX: 'auto' }, async (base, prefix) => {
      await expectSameLists(owner, base, LISTS.slice(0, 1));
      expect(await testEnv().services.redis.hlen(`${prefix}:list:{vendors:${owner.organizationId}}:rows`)).to.equal(1);
    });
  });

  it('LIST_INDEX=off: the store answers the same pages, and no list key is written', async () => {
    const owner = await signUp();
    await vendorsOf(owner, ['Alpha Ltd', 'Beta Ltd', 'Gamma Ltd']);
    await withIndexApi({ LIST_INDEX: 'off' }, async (base, prefix) => {
      // Writes through the second API too: none is followed into Redis.
      await vendorsOf(owner, ['Delta Ltd', 'Epsilon Ltd'], base);
      await expectSameLists(owner, base);
      expect((await api<{ total: number }>('GET', '/vendors', { token: owner.token, base })).body.total).to.equal(5);
      expect(await testEnv().services.redis.keys(`${prefix}:list:*`)).to.deep.equal([]);
    });
  });

  it('LIST_INDEX_REDIS_URL: the index keeps its keys in that Redis database, none in the main one', async () => {
    const owner = await signUp();
    await vendorsOf(owner, ['Own Db Ltd', 'Other Db Ltd']);
    const url = new URL(testEnv().config.REDIS_URL);
    url.pathname = url.pathname === '/1' ? '/2' : '/1';
    const own = new Redis(url.toString());
    try {
      await withIndexApi({ LIST_INDEX: 'on', LIST_INDEX_REDIS_URL: url.toString() }, async (base, prefix) => {
        await vendorsOf(owner, ['Written Ltd'], base);
        await expectSameLists(owner, base);
        const vendors = `${prefix}:list:{vendors:${owner.organizationId}}`;
        expect(await own.hlen(`${vendors}:rows`)).to.equal(3);
        expect(await own.exists(`${vendors}:built`)).to.equal(1);
        expect(await testEnv().services.redis.keys(`${prefix}:list:*`)).to.deep.equal([]);
        const keys = await own.keys(`${prefix}:*`);
        if (keys.length) await own.del(...keys);
      });
    } finally {
      own.disconnect();
    }
  });

  it('after its own Redis restarts from an older snapshot, never lists a record deleted or renamed since', async () => {
    const owner = await signUp();
    let redis = await startRedis();
    try {
      await withIndexApi({ LIST_INDEX: 'on', LIST_INDEX_REDIS_URL: redis.url }, async (base, prefix) => {
        await vendorsOf(owner, ['Acme Ltd', 'Globex Corp', 'Initech LLC'], base);
        const vendors = () =>
          api<{ vendors: Array<{ id: string; name: string }>; total: number }>('GET', '/vendors', { token: owner.token, base });
        const made = (await vendors()).body.vendors;
        const probe = new Redis(redis.url);
        expect(await probe.exists(`${prefix}:list:{vendors:${owner.organizationId}}:built`)).to.equal(1);
        await probe.save();
        probe.disconnect();
        // After the snapshot: a delete and a rename, which the index takes; then Redis restarts from the snapshot.
        const [gone, renamed] = [made[0]!.id, made[1]!.id];
        expect((await api('DELETE', `/vendors/${gone}`, { token: owner.token, base })).status).to.equal(204);
        expect((await api('PUT', `/vendors/${renamed}`, { token: owner.token, base, body: { name: 'Globex Renamed' } })).status).to.equal(
          200,
        );
        await redis.stop();
        redis = await startRedis({ port: redis.port, dir: redis.dir });
        const restarted = new Redis(redis.url);
        try {
          // The snapshot is back (the deleted vendor's entry with it), and the API's index has reconnected.
          expect(await restarted.hexists(`${prefix}:list:{vendors:${owner.organizationId}}:rows`, gone)).to.equal(1);
          await waitFor(
            async () =>
              String(await restarted.client('LIST'))
                .split('\n')
                .filter(Boolean).length > 1,
            10_000,
            'the index reconnected',
          );
          const listed = await vendors();
          expect(listed.body.vendors.map((v) => v.id)).to.not.include(gone);
          expect(listed.body.vendors.find((v) => v.id === renamed)?.name).to.equal('Globex Renamed');
          expect(listed.body.total).to.equal(2);
        } finally {
          restarted.disconnect();
        }
      });
    } finally {
      await redis.stop();
    }
  });

  it('LIST_INDEX_MAX_RECORDS: a longer list is answered by the store and keeps no entry, a shorter one is indexed until it grows past it', async () => {
    const [big, small] = await Promise.all([signUp(), signUp()]);
    await vendorsOf(big, ['V1 Ltd', 'V2 Ltd', 'V3 Ltd', 'V4 Ltd', 'V5 Ltd', 'V6 Ltd']);
    await vendorsOf(small, ['S1 Ltd', 'S2 Ltd', 'S3 Ltd']);
    await withIndexApi({ LIST_INDEX: 'on', LIST_INDEX_MAX_RECORDS: 5 }, async (base, prefix) => {
      const { redis } = testEnv().services;
      const bigKeys = `${prefix}:list:{vendors:${big.organizationId}}`;
      const smallKeys = `${prefix}:list:{vendors:${small.organizationId}}`;
      // Over the bound at its build: the store answers, and only the mark of the bound is kept.
      await expectSameLists(big, base, LISTS.slice(0, 3));
      expect((await api<{ total: number }>('GET', '/vendors', { token: big.token, base })).body.total).to.equal(6);
      expect(await keysOf(redis, bigKeys)).to.deep.equal([`${bigKeys}:over`]);
      // Its later writes are not kept either.
      await vendorsOf(big, ['V7 Ltd'], base);
      expect(await keysOf(redis, bigKeys)).to.deep.equal([`${bigKeys}:over`]);
      await expectSameLists(big, base, LISTS.slice(0, 3));

      // Within the bound: indexed.
      await expectSameLists(small, base, LISTS.slice(0, 3));
      expect(await redis.hlen(`${smallKeys}:rows`)).to.equal(3);
      expect(await redis.exists(`${smallKeys}:built`)).to.equal(1);
      // Past it by writes: dropped, and the store answers.
      await vendorsOf(small, ['S4 Ltd', 'S5 Ltd', 'S6 Ltd'], base);
      expect(await keysOf(redis, smallKeys)).to.deep.equal([`${smallKeys}:over`]);
      await expectSameLists(small, base, LISTS.slice(0, 3));
      expect((await api<{ total: number }>('GET', '/vendors', { token: small.token, base })).body.total).to.equal(6);
    });
  });
});
