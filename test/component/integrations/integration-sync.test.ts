import { expect } from 'chai';
import { Types } from 'mongoose';
import { testEnv } from '../../support/env';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import type { FakeVendor } from '../../support/vendors/server';
import { startSalesforceFake } from '../../support/vendors/salesforce';
import { startHubspotFake } from '../../support/vendors/hubspot';
import { startDriveFake } from '../../support/vendors/google-drive';
import { startClioFake } from '../../support/vendors/clio';
import { Contract } from '../../../models/contract';
import type { SyncProgress } from '../../../workflows/integration-sync.shared';

const TOKEN = 'vendor-token-0123456789';
const CONTRACTS = 250;
/** Every 50th seeded contract is signed (storage keeps a signed copy of those). */
const SIGNED = CONTRACTS / 50;
/** The Clio matter contracts are kept under. */
const MATTER = 1200345;

/** What each vendor's fake holds per contract: how often it was written, and the title it shows. */
interface VendorView {
  /** contract id → number of records or files the vendor holds for it (exactly-once: 1). */
  copies(): Map<string, number>;
  title(contractId: string): string | undefined;
  writeCalls(): number;
}

interface Case {
  type: 'salesforce' | 'hubspot' | 'google_drive' | 'clio';
  prefix: string;
  batches: number;
  /** Which write call gets the 429 (mid-sync, after the first batch). */
  limitAt: number;
  /** `METHOD path` of the call that must get the 429, where that matters. */
  limitHits?: RegExp;
  start(): Promise<{ fake: FakeVendor; body: Record<string, unknown>; view: VendorView }>;
}

const cases: Case[] = [
  {
    type: 'salesforce',
    prefix: 'crm-sync-',
    batches: 2,
    limitAt: 2,
    async start() {
      const fake = await startSalesforceFake({ token: TOKEN, object: 'CLM_Contract__c', externalIdField: 'CLM_Contract_Id__c' });
      return {
        fake,
        body: { access_token: TOKEN, instance_url: fake.url },
        view: {
          copies: () => new Map([...fake.records].map(([k, r]) => [k, r.writes > 0 ? 1 : 0])),
          title: (id) => fake.records.get(id)?.fields.Name as string | undefined,
          writeCalls: () => fake.upsertCalls().length,
        },
      };
    },
  },
  {
    type: 'hubspot',
    prefix: 'crm-sync-',
    batches: 3,
    limitAt: 2,
    async start() {
      const fake = await startHubspotFake({ token: TOKEN, uniqueProperty: 'clm_contract_id' });
      return {
        fake,
        body: { access_token: TOKEN, base_url: fake.url },
        view: {
          copies: () => new Map([...fake.deals].map(([k]) => [k, 1])),
          title: (id) => fake.deals.get(id)?.properties.dealname,
          writeCalls: () => fake.upsertCalls().length,
        },
      };
    },
  },
  {
    type: 'google_drive',
    prefix: 'storage-sync-',
    batches: 25,
    limitAt: 22, // the 2nd file of the 3rd batch
    async start() {
      const fake = await startDriveFake({ token: TOKEN, folderId: 'folder_123' });
      return {
        fake,
        body: { access_token: TOKEN, folder_id: 'folder_123', base_url: fake.url },
        view: {
          copies: () =>
            new Map([...fake.byContract()].filter(([k]) => k.endsWith(':current')).map(([k, files]) => [k.split(':')[0]!, files.length])),
          title: (id) =>
            fake
              .byContract()
              .get(`${id}:current`)?.[0]
              ?.name.replace(/\.txt$/, ''),
          writeCalls: () => fake.uploads().length,
        },
      };
    },
  },
  {
    // Two Clio API writes per document (create, then fully_uploaded); the 44th is the PATCH of the
    // 3rd batch's first document: it exists by then, so the retry must add a version to it.
    type: 'clio',
    prefix: 'storage-sync-',
    batches: 25,
    limitAt: 44,
    limitHits: /^PATCH \/api\/v4\/documents\/\d+\.json$/,
    async start() {
      const fake = await startClioFake({ token: TOKEN, matterId: MATTER });
      return {
        fake,
        body: { access_token: TOKEN, matter_id: MATTER, base_url: fake.url },
        view: {
          copies: () =>
            new Map([...fake.byContract()].filter(([k]) => k.endsWith(':current')).map(([k, docs]) => [k.split(':')[0]!, docs.length])),
          title: (id) => {
            const doc = fake.byContract().get(`${id}:current`)?.[0];
            return doc?.versions.at(-1)?.fully_uploaded ? doc.name.replace(/\.txt$/, '') : undefined;
          },
          writeCalls: () => fake.documentWrites().length,
        },
      };
    },
  },
];

async function seedContracts(organizationId: string): Promise<string[]> {
  const statuses = ['draft', 'active', 'completed', 'expired'] as const;
  const docs = await Contract.insertMany(
    Array.from({ length: CONTRACTS }, (_, i) => ({
      organization_id: new Types.ObjectId(organizationId),
      title: `Contract ${i}`,
      type: 'service_agreement',
      status: statuses[i % 4],
      counterparty: `Party ${i % 7}`,
      content: `Terms of contract ${i}.`,
      value: 1000 + i,
      start_date: new Date('2026-01-01'),
      end_date: new Date('2027-01-01'),
      signed_at: i % 50 === 0 ? new Date('2026-01-02T10:00:00Z') : null,
    })),
  );
  return docs.map((d) => d.id);
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('CRM and storage sync (fakes of the vendor APIs)', function () {
  this.timeout(120000);

  for (const c of cases) {
    describe(c.type, () => {
      let owner: TestUser;
      let fake: FakeVendor;
      let view: VendorView;
      let contractIds: string[];
      let connectBody: Record<string, unknown>;

      before(async () => {
        owner = await signUp();
        const started = await c.start();
        fake = started.fake;
        view = started.view;
        connectBody = started.body;
        contractIds = await seedContracts(owner.organizationId);
        const res = await api('POST', `/integrations/${c.type}/connect`, { token: owner.token, body: started.body });
        expect(res.status, res.text).to.equal(201);
        expect(res.body.config).to.deep.include({ access_token: '[redacted]' });
      });
      after(() => fake.close());

      it('test makes a real, authenticated call', async () => {
        const res = await api<{ ok: boolean; detail: string }>('POST', `/integrations/${c.type}/test`, { token: owner.token });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.ok, res.body.detail).to.equal(true);
        expect(fake.requests.at(-1)!.headers.authorization).to.equal(`Bearer ${TOKEN}`);
      });

      it('refuses at connect an access token an Authorization header cannot carry, keeping the one it has', async () => {
        for (const access_token of ['jeton-à-accent', 'two words', '東京', `x${'y'.repeat(8192)}`]) {
          const res = await api('POST', `/integrations/${c.type}/connect`, { token: owner.token, body: { ...connectBody, access_token } });
          expect(res.status, res.text).to.equal(400);
          expect(res.body.detail).to.match(/^access_token: /);
        }
        const test = await api<{ ok: boolean; detail: string }>('POST', `/integrations/${c.type}/test`, { token: owner.token });
        expect(test.body.ok, test.body.detail).to.equal(true);
      });

      it(`syncs ${CONTRACTS} contracts in ${c.batches} batches, waits out a 429's Retry-After, and upserts each exactly once`, async () => {
        const { services } = testEnv();
        fake.rateLimitOnce(c.limitAt, 1);
        const res = await api<{ workflow_id: string }>('POST', `/integrations/${c.type}/sync`, { token: owner.token });
        expect(res.status, res.text).to.equal(202);
        expect(res.body.workflow_id.startsWith(c.prefix)).to.equal(true);
        const handle = services.temporal.workflow.getHandle(res.body.workflow_id);

        const midway = await until(async () => {
          const p = await handle.query<SyncProgress>('progress');
          return p.synced > 0 ? p : undefined;
        });
        expect(midway.total).to.equal(CONTRACTS);

        const result = (await handle.result()) as SyncProgress;
        expect(result).to.deep.include({ total: CONTRACTS, synced: CONTRACTS, failed: 0, batches: c.batches });

        const copies = view.copies();
        expect(copies.size).to.equal(CONTRACTS);
        for (const id of contractIds) expect(copies.get(id), id).to.equal(1);

        // The 429 was answered once, and the next write waited for its Retry-After (1 s).
        const limited = fake.limited()!;
        if (c.limitHits) expect(`${limited.method} ${limited.path}`).to.match(c.limitHits);
        const next = fake.requests[fake.requests.indexOf(limited) + 1]!;
        expect(next.at - limited.at).to.be.at.least(950);

        const list = await api<{
          integrations: Array<{ type: string; last_sync: SyncProgress | null; last_sync_at: string | null; last_error: string | null }>;
        }>('GET', '/integrations', { token: owner.token });
        const mine = list.body.integrations.find((i) => i.type === c.type)!;
        expect(mine.last_sync).to.deep.include({ total: CONTRACTS, synced: CONTRACTS, failed: 0, batches: c.batches });
        expect(mine.last_sync_at).to.be.a('string');
        expect(mine.last_error).to.equal(null);
      });

      it('a contract created or changed after connecting reaches the vendor without a manual sync', async () => {
        const before = view.writeCalls();
        const created = await api<{ id: string }>('POST', '/contracts', {
          token: owner.token,
          body: { title: 'Fresh deal', type: 'nda', counterparty: 'Newco', value: 5000 },
        });
        expect(created.status, created.text).to.equal(201);
        await until(() => view.title(created.body.id) === 'Fresh deal');

        const updated = await api('PUT', `/contracts/${contractIds[3]}`, { token: owner.token, body: { title: 'Renamed contract 3' } });
        expect(updated.status, updated.text).to.equal(200);
        await until(() => view.title(contractIds[3]!) === 'Renamed contract 3');
        expect(view.copies().get(contractIds[3]!)).to.equal(1); // updated in place, not a second copy
        expect(view.writeCalls() - before).to.be.at.least(2);
      });
    });
  }

  it('google_drive keeps one signed copy per signed contract', async () => {
    // Checked on a fresh organization so the count is exact.
    const owner = await signUp();
    const fake = await startDriveFake({ token: TOKEN, folderId: 'folder_9' });
    try {
      await seedContracts(owner.organizationId);
      const res = await api('POST', '/integrations/google_drive/connect', {
        token: owner.token,
        body: { access_token: TOKEN, folder_id: 'folder_9', base_url: fake.url },
      });
      expect(res.status, res.text).to.equal(201);
      const sync = await api<{ workflow_id: string }>('POST', '/integrations/google_drive/sync', { token: owner.token });
      await testEnv().services.temporal.workflow.getHandle(sync.body.workflow_id).result();
      const signed = [...fake.byContract()].filter(([k]) => k.endsWith(':signed'));
      expect(signed).to.have.length(SIGNED);
      for (const [, files] of signed) {
        expect(files).to.have.length(1);
        expect(files[0]!.name).to.match(/\(signed\)\.txt$/);
        expect(files[0]!.content).to.include('Signed at 2026-01-02');
      }
    } finally {
      await fake.close();
    }
  });

  it('clio writes a changed contract as a new version of the same document; an unknown matter fails the test call', async () => {
    const owner = await signUp();
    const fake = await startClioFake({ token: TOKEN, matterId: 77 });
    try {
      const connect = (matterId: number) =>
        api('POST', '/integrations/clio/connect', {
          token: owner.token,
          body: { access_token: TOKEN, matter_id: matterId, base_url: fake.url },
        });
      expect((await connect(78)).status).to.equal(201);
      const wrong = await api<{ ok: boolean; detail: string }>('POST', '/integrations/clio/test', { token: owner.token });
      expect(wrong.body.ok).to.equal(false);
      expect(wrong.body.detail).to.include('404');
      expect((await connect(77)).status).to.equal(201);
      const good = await api<{ ok: boolean; detail: string }>('POST', '/integrations/clio/test', { token: owner.token });
      expect(good.body, good.text).to.deep.equal({ ok: true, detail: 'matter 00042-Acme reachable as Alex Counsel' });

      const created = await api<{ id: string }>('POST', '/contracts', {
        token: owner.token,
        body: { title: 'Retainer', type: 'nda', counterparty: 'Lawco', value: 900 },
      });
      expect(created.status, created.text).to.equal(201);
      const docOf = () => fake.byContract().get(`${created.body.id}:current`);
      await until(() => docOf()?.[0]?.versions.at(-1)?.fully_uploaded);
      const changed = await api('PUT', `/contracts/${created.body.id}`, { token: owner.token, body: { title: 'Retainer (amended)' } });
      expect(changed.status, changed.text).to.equal(200);
      await until(() => docOf()?.[0]?.name === 'Retainer (amended).txt' && docOf()![0]!.versions.at(-1)!.fully_uploaded);

      const docs = docOf()!;
      expect(docs).to.have.length(1);
      expect(docs[0]!.matterId).to.equal(77);
      expect(docs[0]!.versions.map((v) => v.fully_uploaded)).to.deep.equal([true, true]);
      expect(docs[0]!.versions[1]!.content).to.include('Retainer (amended)');
      const posts = fake.requests.filter((r) => r.method === 'POST');
      expect(posts.map((r) => (JSON.parse(r.body) as { data: { parent: { type: string } } }).data.parent.type)).to.deep.equal([
        'Matter',
        'Document',
      ]);
      // The bytes went to the presigned URL without the Clio token.
      const puts = fake.requests.filter((r) => r.method === 'PUT');
      expect(puts).to.have.length(2);
      for (const put of puts) expect(put.headers.authorization).to.equal(undefined);
    } finally {
      await fake.close();
    }
  });

  it('salesforce: a 403 REQUEST_LIMIT_EXCEEDED mid-sync is waited out with backoff, not taken for bad credentials', async () => {
    const owner = await signUp();
    const fake = await startSalesforceFake({ token: TOKEN, object: 'CLM_Contract__c', externalIdField: 'CLM_Contract_Id__c' });
    try {
      await seedContracts(owner.organizationId);
      const res = await api('POST', '/integrations/salesforce/connect', {
        token: owner.token,
        body: { access_token: TOKEN, instance_url: fake.url },
      });
      expect(res.status, res.text).to.equal(201);
      fake.rateLimitOnce(2, null, 403);
      const sync = await api<{ workflow_id: string }>('POST', '/integrations/salesforce/sync', { token: owner.token });
      const result = (await testEnv().services.temporal.workflow.getHandle(sync.body.workflow_id).result()) as SyncProgress;
      expect(result).to.deep.include({ total: CONTRACTS, synced: CONTRACTS, failed: 0, batches: 2 });

      const limited = fake.limited()!;
      expect(limited, 'the 403 was answered').to.not.equal(null);
      const next = fake.requests[fake.requests.indexOf(limited) + 1]!;
      expect(next.at - limited.at, 'retried after the backoff interval').to.be.at.least(900);
      expect(fake.records.size).to.equal(CONTRACTS);
      for (const r of fake.records.values()) expect(r.writes).to.equal(1);

      const list = await api<{ integrations: Array<{ type: string; status: string; last_error: string | null }> }>('GET', '/integrations', {
        token: owner.token,
      });
      expect(list.body.integrations.find((i) => i.type === 'salesforce')).to.deep.include({ status: 'connected', last_error: null });
    } finally {
      await fake.close();
    }
  });

  it('refuses to sync a chat integration, and unknown credentials fail the test call', async () => {
    const owner = await signUp();
    const fake = await startHubspotFake({ token: TOKEN, uniqueProperty: 'clm_contract_id' });
    try {
      await api('POST', '/integrations/hubspot/connect', { token: owner.token, body: { access_token: 'wrong-token', base_url: fake.url } });
      const test = await api<{ ok: boolean; detail: string }>('POST', '/integrations/hubspot/test', { token: owner.token });
      expect(test.body.ok).to.equal(false);
      expect(test.body.detail).to.include('401');
      const chat = await api('POST', '/integrations/slack/sync', { token: owner.token });
      expect(chat.status).to.equal(400);
    } finally {
      await fake.close();
    }
  });
});
