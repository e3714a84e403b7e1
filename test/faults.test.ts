/**
 * Fault tests (`npm run test:faults`; over a minute, so outside `npm test`): a worker
 * killed mid-ingestion, and Elasticsearch cut off from an API process. Each breaks
 * engines or processes of its own, never the shared ones.
 * Also covered elsewhere: Temporal down while an event happens (test/webhooks.test.ts,
 * "when Temporal is down"), the store down and back (test/health.test.ts).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { api } from './support/http';
import { testEnv, testEnvironment } from './support/env';
import { signUp, type TestUser } from './support/auth';
import { upload, type UploadedDocument } from './support/documents';
import { startApiProcess, startTcpProxy, startWorkerProcess, waitFor, type EngineProcess } from './support/processes';
import { indexName } from '../lib/vector-store';

describe('faults', function () {
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  describe('a worker killed with SIGKILL mid-ingestion', function () {
    this.timeout(900000);
    // An API and workers on a task queue of their own, so only these workers run this ingestion.
    const env = { ...testEnvironment(), TEMPORAL_TASK_QUEUE: `faults-${randomBytes(4).toString('hex')}` };
    let apiProc: EngineProcess;
    const workers: Array<ReturnType<typeof startWorkerProcess>> = [];
    before(async () => {
      apiProc = await startApiProcess(env);
    });
    after(async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await apiProc?.stop();
    });

    it('is resumed by a new worker: ready, with exactly chunk_count chunks indexed', async () => {
      const { services } = testEnv();
      // ~2,000 chunks of 1,200 characters: twenty embedding and indexing batches.
      const text = Array.from({ length: 20000 }, (_, i) => `Clause ${i}: the supplier keeps record ${i} for seven years. `).join('\n');
      const res = await upload(owner.token, { name: 'archive.txt', bytes: Buffer.from(text) }, 'other', { base: `${apiProc.url}/api/v1` });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const handle = services.temporal.workflow.getHandle(res.body.workflow_id);
      const batchesDone = async () =>
        (await handle.fetchHistory()).events?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0;

      workers.push(startWorkerProcess(env));
      // Extraction plus two indexing batches done: the worker is in the middle of the document.
      await waitFor(async () => (await batchesDone()) >= 3, 180000, 'two indexed batches');
      const killedAt = Date.now();
      await workers[0]!.kill();
      const doneBeforeKill = await batchesDone();

      workers.push(startWorkerProcess(env));
      expect(await handle.result()).to.equal('ready');
      const resumedMs = Date.now() - killedAt;

      const doc = (await api<UploadedDocument>('GET', `/documents/${res.body.id}`, { token: owner.token })).body;
      expect(doc.status).to.equal('ready');
      expect(doc.chunk_count).to.be.greaterThan(1000);
      const index = indexName(services, 'user_documents');
      await services.es.indices.refresh({ index });
      const query = { term: { source_id: res.body.id } };
      expect((await services.es.count({ index, query })).count).to.equal(doc.chunk_count);
      const distinct = await services.es.search({ index, size: 0, query, aggs: { chunks: { cardinality: { field: 'chunk_index', precision_threshold: 40000 } } } });
      expect((distinct.aggregations?.chunks as { value: number }).value).to.equal(doc.chunk_count);
      console.log(`      ${doc.chunk_count} chunks; killed after ${doneBeforeKill} activities; ready ${resumedMs} ms after the kill`);
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
      const ask = () => api<{ detail?: string }>('POST', '/chat/send', { base, token: owner.token, body: { message: 'What is the notice period?', stream: false } });
      expect((await ask()).status).to.equal(200);

      esLink.cut();
      const down = await ask();
      expect(down.status).to.equal(503);
      expect(down.body.detail).to.equal('The vector store (Elasticsearch) is unavailable, so questions cannot be answered now; try again shortly');
      const created = await api<{ id: string }>('POST', '/contracts', { base, token: owner.token, body: { title: 'Made during the search outage', type: 'nda', counterparty: 'Cutoff Ltd' } });
      expect(created.status).to.equal(201);
      const list = await api<{ contracts: Array<{ id: string }> }>('GET', '/contracts?page_size=20', { base, token: owner.token });
      expect(list.status).to.equal(200);
      expect(list.body.contracts.map((c) => c.id)).to.include(created.body.id);

      esLink.restore();
      expect((await ask()).status).to.equal(200);
    });
  });
});
