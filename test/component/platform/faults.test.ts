/**
 * Fault tests (`npm run test:faults`; minutes, so outside `npm test`): a worker killed
 * mid-ingestion, mid-CRM-sync and mid-way through the search rebuild, Temporal down for 30 s
 * while contracts change, Elasticsearch cut off from an API process, and the SMTP server down
 * for 2 minutes. Each breaks engines or processes of its own, never the shared ones.
 * Also covered elsewhere: a short Temporal outage (test/component/webhooks/webhooks.test.ts, "when Temporal is
 * down"), the store down and back (test/component/platform/health.test.ts).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import mongoose, { Types } from 'mongoose';
import { defaultPayloadConverter } from '@temporalio/common';
import { api } from '../../support/http';
import { testEnv, testEnvironment } from '../../support/env';
import { fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { upload, type UploadedDocument } from '../../support/documents';
import { startReceiver } from '../../support/receiver';
import { startOutageStack, type OutageStack } from '../../support/outage';
import { startSalesforceFake } from '../../support/vendors/salesforce';
import { startApiProcess, startGreenMail, startTcpProxy, startWorkerProcess, waitFor, type EngineProcess } from '../../support/processes';
import { mailbox, uniqueAddress } from '../../support/mailbox';
import { indexName } from '../../../services/search/vector-store';
import { Contract } from '../../../models/contract';
import { Signature } from '../../../models/signature';
import { SignedPdf } from '../../../models/signed-pdf';
import type { SyncProgress } from '../../../workflows/integration-sync.shared';
import { signatureWorkflowId } from '../../../workflows/signature.shared';
import { generationReindexId } from '../../../workflows/search-reindex.shared';
import { REBUILD_PAGE, type RebuildProgress } from '../../../services/search/rebuild-search-index';
import { aliasedIndices, GENERATION, generationIndex, isBuilt, searchAlias } from '../../../services/search/contract-search-index';

/**
 * An HTTP relay to a vendor fake that holds the nth matching request: it arrives, the test
 * acts (kills the worker that sent it), then it is released to the vendor, which applies it
 * and answers a caller that is gone, like a crash right after the vendor's write.
 */
async function startGate(target: string, matches: (method: string, url: string) => boolean, holdNth: number) {
  let seen = 0;
  let arrived = () => {};
  let release = () => {};
  const arrival = new Promise<void>((r) => (arrived = r));
  const gate = new Promise<void>((r) => (release = r));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (matches(req.method ?? '', req.url ?? '') && ++seen === holdNth) {
          arrived();
          await gate;
        }
        const headers = Object.fromEntries(
          Object.entries(req.headers)
            .filter(([k]) => !['host', 'connection', 'content-length'].includes(k))
            .map(([k, v]) => [k, String(v)]),
        );
        const answer = await fetch(`${target}${req.url}`, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves when the held request has arrived. */
    held: () => arrival,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An API process and worker processes on a task queue of their own, so only these workers run
 * a describe block's work: the API starts before its tests, and everything stops after them.
 */
function ownTaskQueue(overrides: Record<string, string> = {}) {
  const env = { ...testEnvironment(), TEMPORAL_TASK_QUEUE: `faults-${randomBytes(4).toString('hex')}`, ...overrides };
  const workers: Array<ReturnType<typeof startWorkerProcess>> = [];
  let apiProc: EngineProcess | undefined;
  before(async () => {
    apiProc = await startApiProcess(env);
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await apiProc?.stop();
  });
  return {
    /** The API process's /api/v1. */
    base: () => `${apiProc!.url}/api/v1`,
    startWorker: () => void workers.push(startWorkerProcess(env)),
    killWorker: (i: number) => workers[i]!.kill(),
  };
}

describe('faults', function () {
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  // With the default model (what `npm start` runs) and with feature hashing (no model folder).
  const embedders: Array<{ name: string; env: Record<string, string> }> = [
    { name: 'the default embedding model', env: {} },
    { name: 'feature hashing', env: { EMBEDDING_MODEL_DIR: '.stack/no-model' } },
  ];
  for (const embedder of embedders) {
    describe(`a worker killed with SIGKILL mid-ingestion, embedding with ${embedder.name}`, function () {
      this.timeout(1800000);
      const own = ownTaskQueue(embedder.env);

      it('is resumed by a new worker: ready, with exactly chunk_count chunks indexed', async () => {
        const { services } = testEnv();
        // About 1,300 chunks of up to 1,200 characters: thirteen embedding and indexing batches, in two
        // indexing activities of up to INGEST_SPAN batches each.
        const text = Array.from({ length: 20000 }, (_, i) => `Clause ${i}: the supplier keeps record ${i} for seven years. `).join('\n');
        const res = await upload(owner.token, { name: 'archive.txt', bytes: Buffer.from(text) }, 'other', { base: own.base() });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        const handle = services.temporal.workflow.getHandle(res.body.workflow_id);
        const completed = async () => (await handle.fetchHistory()).events?.filter((e) => e.activityTaskCompletedEventAttributes) ?? [];

        own.startWorker();
        // Extraction plus the first span of batches done: the worker is in the middle of the document.
        await waitFor(async () => (await completed()).length >= 2, 1200000, 'the first indexed span');
        const killedAt = Date.now();
        await own.killWorker(0);
        const doneBeforeKill = (await completed()).length;

        own.startWorker();
        expect(await handle.result()).to.equal('ready');
        const resumedMs = Date.now() - killedAt;

        const doc = (await api<UploadedDocument>('GET', `/documents/${res.body.id}`, { token: owner.token })).body;
        expect(doc.status).to.equal('ready');
        expect(doc.chunk_count).to.be.greaterThan(1000);
        const index = indexName(services, 'user_documents');
        await services.es.indices.refresh({ index });
        const query = { term: { source_id: res.body.id } };
        expect((await services.es.count({ index, query })).count).to.equal(doc.chunk_count);
        const distinct = await services.es.search({
          index,
          size: 0,
          query,
          aggs: { chunks: { cardinality: { field: 'chunk_index', precision_threshold: 40000 } } },
        });
        expect((distinct.aggregations?.chunks as { value: number }).value).to.equal(doc.chunk_count);
        // Recovery = the heartbeat timeout (the dead worker's attempt is given up) + the re-run of
        // its span from its start: the attempt that completed it started when the first ended.
        const events = (await handle.fetchHistory()).events ?? [];
        const rerun = events.find((e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1);
        expect(rerun, 'a retried attempt of the killed span').to.not.equal(undefined);
        const at = (e: (typeof events)[number]) => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
        const rerunStart = at(rerun!);
        const rerunEnd = at(
          events.find((e) => e.activityTaskCompletedEventAttributes?.startedEventId?.toString() === rerun!.eventId!.toString())!,
        );
        console.log(
          `      ${embedder.name}: ${doc.chunk_count} chunks; killed after ${doneBeforeKill} activities; ready ${(resumedMs / 1000).toFixed(1)} s after the kill: ` +
            `the span's retry started ${((rerunStart - killedAt) / 1000).toFixed(1)} s after it (heartbeat timeout 30 s), its re-run took ${((rerunEnd - rerunStart) / 1000).toFixed(1)} s`,
        );
      });
    });
  }

  describe('a worker killed with SIGKILL between rendering and sealing the signed PDF', function () {
    this.timeout(900000);
    const own = ownTaskQueue();

    it('is finished by a new worker: completed, exactly one sealed PDF, and it validates', async () => {
      const { services } = testEnv();
      const base = own.base();
      const content = Array.from({ length: 200 }, (_, i) => `${i + 1}. The Supplier keeps record ${i + 1} for seven years.`).join('\n');
      const c = await api<{ id: string }>('POST', '/contracts', {
        base,
        token: owner.token,
        body: { title: 'Records retention', type: 'service_agreement', counterparty: 'Archive Co', content },
      });
      expect(c.status, JSON.stringify(c.body)).to.equal(201);
      const sent = await api<{ id: string; signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
        base,
        token: owner.token,
        body: { contract_id: c.body.id, signers: [{ name: 'Ada Signer', email: uniqueAddress('ada') }] },
      });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      own.startWorker();
      const token = sent.body.signers[0]!.signing_url.split('/').pop()!;
      const signed = await api('POST', `/signatures/sign/${token}`, { base, body: { signature_text: 'Ada Signer' } });
      expect(signed.status, JSON.stringify(signed.body)).to.equal(200);

      // The moment the render activity has completed, the worker goes: it has not sealed yet, or is sealing.
      const handle = services.temporal.workflow.getHandle(signatureWorkflowId(sent.body.id));
      const rendered = async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const scheduled = new Map(
          events
            .filter((e) => e.activityTaskScheduledEventAttributes)
            .map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]),
        );
        return events.some(
          (e) =>
            e.activityTaskCompletedEventAttributes &&
            scheduled.get(String(e.activityTaskCompletedEventAttributes.scheduledEventId)) === 'renderSignedPdf',
        );
      };
      await waitFor(rendered, 180000, 'the signed PDF rendered');
      await own.killWorker(0);
      const atKill = await Signature.findById(sent.body.id, { sealed_at: 1 }).lean();
      expect(atKill?.sealed_at ?? null, 'the worker was killed before the seal was recorded').to.equal(null);
      expect((await SignedPdf.findById(sent.body.id, { state: 1 }).lean())?.state, 'the rendered, unsealed file is stored').to.equal(
        'rendered',
      );

      const killedAt = Date.now();
      own.startWorker();
      await waitFor(async () => !!(await Signature.findById(sent.body.id, { sealed_at: 1 }).lean())?.sealed_at, 300000, 'the PDF sealed');
      const sig = (
        await api<{ status: string; pdf_sha256: string | null; sealing_error: string | null }>('GET', `/signatures/${sent.body.id}`, {
          base,
          token: owner.token,
        })
      ).body;
      expect(sig).to.include({ status: 'completed', sealing_error: null });
      // One record per request (its _id is the request's), now the sealed file the request names.
      const stored = await SignedPdf.find({ organization_id: new Types.ObjectId(owner.organizationId) }, { state: 1, sha256: 1 }).lean();
      const mine = stored.filter((x) => String(x._id) === sent.body.id);
      expect(mine).to.have.length(1);
      expect(mine[0]).to.include({ state: 'sealed', sha256: sig.pdf_sha256 });
      const verify = await api<{ seal: { status: string; valid: boolean; covers_whole_document: boolean } }>(
        'GET',
        `/signatures/${sent.body.id}/verify`,
        { base, token: owner.token },
      );
      expect(verify.body.seal).to.include({ status: 'sealed', valid: true, covers_whole_document: true });
      console.log(`      sealed ${Date.now() - killedAt} ms after the kill`);
    });
  });

  describe('a worker killed with SIGKILL mid-CRM-sync', function () {
    this.timeout(600000);
    const CONTRACTS = 1000; // five Salesforce batches of 200
    const TOKEN = 'vendor-token-faults-0123';
    let fake: Awaited<ReturnType<typeof startSalesforceFake>>;
    let gate: Awaited<ReturnType<typeof startGate>>;
    before(async () => {
      fake = await startSalesforceFake({ token: TOKEN, object: 'CLM_Contract__c', externalIdField: 'CLM_Contract_Id__c' });
      // The third batch reaches the vendor only after the worker that sent it is dead.
      gate = await startGate(fake.url, (method, url) => method === 'PATCH' && url.includes('/composite/sobjects/'), 3);
    });
    after(async () => {
      gate?.release();
      await gate?.close();
      await fake?.close();
    });
    // After the vendor's hooks: its after hook releases the gate before the workers stop.
    const own = ownTaskQueue();

    it('is resumed by a new worker: every contract upserted, one vendor record each', async () => {
      const base = own.base();
      const owner = await signUp();
      // Seeded straight into the store: no contract events, so only the sync writes to the vendor.
      const seeded = await Contract.insertMany(
        Array.from({ length: CONTRACTS }, (_, i) => ({
          organization_id: new Types.ObjectId(owner.organizationId),
          title: `Synced ${i}`,
          type: 'service_agreement',
          status: 'active',
          counterparty: `Party ${i % 9}`,
          content: `Terms ${i}.`,
        })),
      );
      const ids = seeded.map((c) => c.id);
      const connect = await api('POST', '/integrations/salesforce/connect', {
        base,
        token: owner.token,
        body: { access_token: TOKEN, instance_url: gate.url },
      });
      expect(connect.status, connect.text).to.equal(201);

      own.startWorker();
      const sync = await api<{ workflow_id: string }>('POST', '/integrations/salesforce/sync', { base, token: owner.token });
      expect(sync.status, sync.text).to.equal(202);
      await gate.held();
      const killedAt = Date.now();
      await own.killWorker(0);
      gate.release(); // the vendor applies the batch; its answer goes nowhere
      await waitFor(() => Promise.resolve(fake.upsertCalls().length === 3), 10000, 'the held batch at the vendor');

      own.startWorker();
      const handle = testEnv().services.temporal.workflow.getHandle(sync.body.workflow_id);
      const result = (await handle.result()) as SyncProgress;
      const resumedMs = Date.now() - killedAt;
      expect(result).to.deep.include({ total: CONTRACTS, synced: CONTRACTS, failed: 0, batches: CONTRACTS / 200 });

      // Upserts per contract id, from what the vendor received.
      const writes = new Map<string, number>();
      for (const call of fake.upsertCalls()) {
        for (const rec of (JSON.parse(call.body) as { records: Array<{ CLM_Contract_Id__c: string }> }).records) {
          writes.set(rec.CLM_Contract_Id__c, (writes.get(rec.CLM_Contract_Id__c) ?? 0) + 1);
        }
      }
      expect([...writes.keys()].sort()).to.deep.equal([...ids].sort()); // no loss, nothing foreign
      const twice = [...writes.values()].filter((n) => n === 2).length;
      expect([...writes.values()].every((n) => n === 1 || n === 2)).to.equal(true);
      expect(twice).to.equal(200); // only the batch in flight at the kill was sent again
      // No duplicate: one vendor record per contract, created once (the resend updated it).
      expect(fake.records.size).to.equal(CONTRACTS);
      expect(new Set([...fake.records.values()].map((r) => r.id)).size).to.equal(CONTRACTS);
      console.log(
        `      ${CONTRACTS} contracts in ${fake.upsertCalls().length} upsert calls; ${twice} upserted twice (the batch in flight at the kill); done ${resumedMs} ms after the kill`,
      );
    });
  });

  describe('a worker killed with SIGKILL mid-way through the search rebuild after a mapping change', function () {
    this.timeout(900000);
    // A database and index prefix of its own: the rebuild copies every contract of its
    // database into a new generation's index, here exactly the ones this test seeds.
    const label = `reindexkill_${randomBytes(4).toString('hex')}`;
    const shared = testEnvironment();
    const mongo = new URL(shared.MONGODB_URI!);
    mongo.pathname = `${mongo.pathname}_${label}`;
    const prefix = `${shared.ELASTICSEARCH_INDEX_PREFIX}${label}_`;
    const own = ownTaskQueue({
      MONGODB_URI: mongo.toString(),
      ELASTICSEARCH_INDEX_PREFIX: prefix,
      REDIS_KEY_PREFIX: `${shared.REDIS_KEY_PREFIX}:${label}`,
      EMBEDDING_MODEL_DIR: '.stack/no-model',
    });
    const db = () => mongoose.connection.useDb(mongo.pathname.slice(1));
    after(async () => {
      await db().dropDatabase();
    });

    it('is resumed from its last heartbeat by a new worker, and ends with every contract indexed once', async () => {
      const { services } = testEnv();
      const search = { es: services.es, config: { ...services.config, ELASTICSEARCH_INDEX_PREFIX: prefix } };
      const base = own.base();
      const register = await api<{ access_token: string; user: { organization_id: string } }>('POST', '/auth/register', {
        base,
        headers: fromIp(uniqueIp()),
        body: { email: `${label}@example.test`, password: 'reindex-password-1', full_name: 'Reindex Owner' },
      });
      expect(register.status, register.text).to.equal(201);
      const org = register.body.user.organization_id;

      // Ten pages of REBUILD_PAGE, written to the store directly: no hook indexes them, so
      // only the rebuild can. (No index of this prefix exists: a mapping change's first start.)
      const CONTRACTS = 10 * REBUILD_PAGE;
      const now = new Date();
      const seeded = Array.from({ length: CONTRACTS }, (_, i) => ({
        _id: new Types.ObjectId(),
        organization_id: new Types.ObjectId(org),
        title: `Supply agreement ${i}`,
        type: 'service_agreement',
        status: 'active',
        counterparty: `Supplier ${i % 50}`,
        party_name: null,
        content: `The supplier delivers lot ${i}.`,
        vendor_id: null,
        document_id: null,
        value: i,
        currency: 'USD',
        start_date: null,
        end_date: null,
        signed_at: null,
        created_by: null,
        risk_score: null,
        analysis: null,
        analyzed_at: null,
        created_at: now,
        updated_at: now,
      }));
      await db().collection('contracts').insertMany(seeded);
      const ids = seeded.map((c) => c._id.toHexString()).sort();

      // The worker's start finds no built index of this generation and starts the rebuild.
      own.startWorker();
      const handle = services.temporal.workflow.getHandle(generationReindexId(searchAlias(search), GENERATION));
      const rebuilding = async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        const part = pending.find((a) => a.activityType?.name === 'rebuildSearchPart');
        const details = part?.heartbeatDetails?.payloads?.[0];
        return { attempt: part?.attempt ?? 0, progress: details ? defaultPayloadConverter.fromPayload<RebuildProgress>(details) : null };
      };
      // At least one page written and reported, the part still running.
      await waitFor(async () => ((await rebuilding()).progress?.indexed ?? 0) > 0, 300000, 'the first page of the rebuild');
      const killedAt = Date.now();
      await own.killWorker(0);
      // What the server holds for the killed attempt: where its retry starts.
      const { progress: reported } = await rebuilding();
      const resumeAfter = reported!.after!;
      const writtenBeforeKill = ids.filter((id) => id <= resumeAfter).length;
      expect(writtenBeforeKill).to.be.within(REBUILD_PAGE, CONTRACTS - REBUILD_PAGE);
      // Pages past the last heartbeat the server holds (heartbeats are throttled) are written again.
      await services.es.indices.refresh({ index: generationIndex(search) });
      const inIndexAtKill = (await services.es.count({ index: generationIndex(search) })).count;

      own.startWorker();
      expect(await handle.result()).to.deep.equal({ indexed: CONTRACTS });

      // The alias names this generation's index, marked built.
      expect(await aliasedIndices(search)).to.deep.equal([generationIndex(search)]);
      expect(await isBuilt(search)).to.equal(true);
      // Every contract once, none other.
      const index = searchAlias(search);
      await services.es.indices.refresh({ index });
      const query = { term: { organization_id: org } };
      const all = await services.es.search({ index, query, size: CONTRACTS + 1, _source: false, track_total_hits: true });
      const hitIds = all.hits.hits.map((h) => h._id!);
      expect(hitIds.length).to.equal(CONTRACTS);
      expect(hitIds.sort()).to.deep.equal(ids);
      const found = await api<{ total: number }>('GET', '/search/contracts?page_size=1', { base, token: register.body.access_token });
      expect(found.status).to.equal(200);
      expect(found.body.total).to.equal(CONTRACTS);

      // The part was retried after the kill...
      const events = (await handle.fetchHistory()).events ?? [];
      const parts = new Set(
        events
          .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'rebuildSearchPart')
          .map((e) => String(e.eventId)),
      );
      const retried = events.find(
        (e) =>
          parts.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) &&
          (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
      );
      expect(retried, 'a retried attempt of the killed part').to.not.equal(undefined);
      // ...and the retry wrote only the contracts after its predecessor's last heartbeat: each
      // document carries when it was read (indexed_at), and those the killed worker reported
      // were not rewritten (a retry from the start would have rewritten them all).
      const since = (range: { lt: string } | { gte: string }) =>
        services.es.count({ index, query: { bool: { filter: [query, { range: { indexed_at: range } }] } } });
      const before = (await since({ lt: new Date(killedAt).toISOString() })).count;
      const rewritten = (await since({ gte: new Date(killedAt).toISOString() })).count;
      expect(before).to.equal(writtenBeforeKill);
      expect(rewritten).to.equal(CONTRACTS - writtenBeforeKill);
      console.log(
        `      ${CONTRACTS} contracts; killed with ${inIndexAtKill} written, ${writtenBeforeKill} reported (attempt ${String(retried!.activityTaskStartedEventAttributes!.attempt)} ` +
          `wrote the other ${rewritten}); done ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill (heartbeat timeout 30 s)`,
      );
    });
  });

  describe('Temporal unavailable for 30 s', function () {
    this.timeout(600000);
    const OUTAGE_MS = 30000;
    let stack: OutageStack;
    before(async () => {
      stack = await startOutageStack('faults-outage');
    });
    after(() => stack?.stop());

    it('loses no event: every contract change of the outage is delivered exactly once after it', async () => {
      const { base, token } = stack;
      const receiver = await startReceiver(() => 200);
      const sub = await api('POST', '/webhooks/subscribe', {
        base,
        token,
        body: { url: receiver.url, events: ['contract.created', 'contract.updated'], secret: 'whsec-faults-outage-0123456789' },
      });
      expect(sub.status, sub.text).to.equal(201);
      const create = async (title: string) => {
        const res = await api<{ id: string }>('POST', '/contracts', {
          base,
          token,
          body: { title, type: 'nda', counterparty: 'Outage Co' },
        });
        expect(res.status, res.text).to.equal(201);
        return res.body.id;
      };
      const expected: string[] = []; // "<event> <contract id>"
      for (let i = 0; i < 3; i++) expected.push(`contract.created ${await create(`Before ${i}`)}`);
      await receiver.waitFor(3, 60000); // the worker is polling

      await stack.stopTemporal();
      const downAt = Date.now();
      const slowest = { ms: 0 };
      // Changes keep being accepted during the outage, one a second: creates and updates.
      while (Date.now() - downAt < OUTAGE_MS) {
        const started = Date.now();
        const id = await create(`During ${expected.length}`);
        expected.push(`contract.created ${id}`);
        if (expected.length % 3 === 0) {
          const upd = await api('PUT', `/contracts/${id}`, { base, token, body: { status: 'active' } });
          expect(upd.status, upd.text).to.equal(200);
          expected.push(`contract.updated ${id}`);
        }
        slowest.ms = Math.max(slowest.ms, Date.now() - started);
        await new Promise((r) => setTimeout(r, 1000));
      }
      expect(receiver.received).to.have.length(3); // nothing could be delivered meanwhile
      expect(stack.worker.running()).to.equal(true);

      await stack.startTemporal();
      const upAt = Date.now();
      const received = await receiver.waitFor(expected.length, 240000);
      const allInMs = Date.now() - upAt;
      await new Promise((r) => setTimeout(r, 10000)); // nothing more arrives: no second delivery
      const got = received.map((r) => {
        const payload = JSON.parse(r.body) as { event: string; data: { id: string } };
        return `${payload.event} ${payload.data.id}`;
      });
      expect([...got].sort()).to.deep.equal([...expected].sort());
      expect(new Set(received.map((r) => r.headers['x-service-delivery'])).size).to.equal(expected.length);
      expect(stack.worker.running()).to.equal(true);
      await receiver.close();
      console.log(
        `      ${expected.length - 3} events during a ${OUTAGE_MS / 1000} s outage (slowest write ${slowest.ms} ms); all ${expected.length} delivered once, the last ${allInMs} ms after Temporal was back`,
      );
    });
  });

  describe('the SMTP server stopped for 2 minutes', function () {
    this.timeout(900000);
    const OUTAGE_MS = 120000;
    const MESSAGES = 20;
    let greenmail: Awaited<ReturnType<typeof startGreenMail>>;
    let stack: OutageStack;
    before(async () => {
      greenmail = await startGreenMail();
      stack = await startOutageStack('faults-mail', { sharedTemporal: true, env: { SMTP_URL: greenmail.url } });
    });
    after(async () => {
      await stack?.stop();
      await greenmail?.stop();
    });

    it('loses no message queued meanwhile: all 20 arrive once after it returns, and the list shows them sent', async () => {
      const { base, token } = stack;
      type Listed = { messages: Array<{ to: string; status: string; attempts: number }>; total: number };
      const listed = async () => (await api<Listed>('GET', '/settings/mail?page_size=100', { base, token })).body.messages;
      const invite = async (email: string) => {
        const res = await api('POST', '/team/invite', { base, token, body: { email, role: 'viewer' } });
        expect(res.status, res.text).to.equal(201);
      };
      // The worker is polling: a first message goes through.
      const probe = uniqueAddress('probe');
      await invite(probe);
      await waitFor(async () => (await mailbox(probe, greenmail.apiUrl)).length === 1, 180000, 'the probe message');

      const { smtpPort, apiPort } = greenmail;
      await greenmail.stop();
      const downAt = Date.now();
      const addresses = Array.from({ length: MESSAGES }, (_, i) => uniqueAddress(`outage-${i}`));
      for (const email of addresses) await invite(email); // the API answers as before
      await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - downAt)));
      const during = (await listed()).filter((m) => addresses.includes(m.to));
      expect(during).to.have.length(MESSAGES);
      expect(during.filter((m) => m.status === 'sent')).to.have.length(0);
      expect(Math.max(...during.map((m) => m.attempts))).to.be.greaterThan(1); // retried meanwhile

      greenmail = await startGreenMail({ smtpPort, apiPort });
      const upAt = Date.now();
      await waitFor(
        async () => (await listed()).filter((m) => addresses.includes(m.to) && m.status === 'sent').length === MESSAGES,
        300000,
        'all messages sent',
      );
      const allSentMs = Date.now() - upAt;
      await new Promise((r) => setTimeout(r, 10000)); // nothing more arrives: no second copy
      const boxes = await Promise.all(addresses.map((a) => mailbox(a, greenmail.apiUrl)));
      expect(boxes.map((b) => b.length)).to.deep.equal(addresses.map(() => 1));
      expect(new Set(boxes.map((b) => b[0]!.messageId)).size).to.equal(MESSAGES);
      const attempts = (await listed()).filter((m) => addresses.includes(m.to)).map((m) => m.attempts);
      console.log(
        `      ${MESSAGES} messages queued during a ${OUTAGE_MS / 1000} s SMTP outage, tried up to ${Math.max(...attempts)} times; all sent ${allSentMs} ms after it returned, once each`,
      );
    });
  });

  describe('Elasticsearch unreachable', function () {
    this.timeout(120000);
    let apiProc: EngineProcess;
    let esLink: Awaited<ReturnType<typeof startTcpProxy>>;
    before(async () => {
      const es = new URL(testEnv().config.ELASTICSEARCH_URL);
      esLink = await startTcpProxy({ host: es.hostname, port: Number(es.port) });
      apiProc = await startApiProcess({ ...testEnvironment(), ELASTICSEARCH_URL: `http://127.0.0.1:${esLink.port}` });
    });
    after(async () => {
      await apiProc?.stop();
      await esLink?.close();
    });

    it('makes chat answer 503 with a clear detail while contracts keep working, and chat returns with it', async () => {
      const base = `${apiProc.url}/api/v1`;
      const ask = () =>
        api<{ detail?: string }>('POST', '/chat/send', {
          base,
          token: owner.token,
          body: { message: 'What is the notice period?', stream: false },
        });
      expect((await ask()).status).to.equal(200);

      esLink.cut();
      const down = await ask();
      expect(down.status).to.equal(503);
      expect(down.headers.get('x-error-code')).to.equal('search_unavailable');
      expect(down.body.detail).to.equal(
        'The vector store (Elasticsearch) is unavailable, so questions cannot be answered now; try again shortly',
      );
      const created = await api<{ id: string }>('POST', '/contracts', {
        base,
        token: owner.token,
        body: { title: 'Made during the search outage', type: 'nda', counterparty: 'Cutoff Ltd' },
      });
      expect(created.status).to.equal(201);
      const list = await api<{ contracts: Array<{ id: string }> }>('GET', '/contracts?page_size=20', { base, token: owner.token });
      expect(list.status).to.equal(200);
      expect(list.body.contracts.map((c) => c.id)).to.include(created.body.id);

      esLink.restore();
      expect((await ask()).status).to.equal(200);
    });
  });
});
