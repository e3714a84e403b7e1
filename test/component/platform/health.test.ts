import { expect } from 'chai';
import { api } from '../../support/http';
import { testEnv, testEnvironment, withSecondApi } from '../../support/env';
import { startApiProcess, startFerretDb, startRedis, startTcpProxy, waitFor, type EngineProcess } from '../../support/processes';

interface Health {
  status: string;
  version: string;
  services: Record<string, string>;
  workers: { workflow_pollers: number; activity_pollers: number } | null;
  bulk_workers: { workflow_pollers: number; activity_pollers: number } | null;
}

const health = (base: string) => api<Health>('GET', '/health', { base });

describe('GET /health', () => {
  it('reports every engine connected and the polling workers, without credentials', async () => {
    const res = await health(testEnv().hostUrl);
    expect(res.status).to.equal(200);
    const { workers, bulk_workers: bulk, ...rest } = res.body;
    expect(rest).to.deep.equal({
      status: 'healthy',
      version: testEnv().config.version,
      services: { database: 'connected', cache: 'connected', vector_store: 'connected', workflow_engine: 'connected' },
    });
    // The run's worker (and any a test started on the same queue in the last 2 minutes).
    expect(workers?.workflow_pollers).to.be.at.least(1);
    expect(workers?.activity_pollers).to.be.at.least(1);
    expect(bulk?.workflow_pollers).to.be.at.least(1);
    expect(bulk?.activity_pollers).to.be.at.least(1);
  });

  it('is degraded, still 200, when no worker polls the task queue', async () => {
    // An API on a task queue of its own, which no worker polls: uploads would wait forever.
    await withSecondApi({ TEMPORAL_TASK_QUEUE: `unpolled-${Date.now()}` }, async (base) => {
      const res = await health(base.replace(/\/api\/v1$/, ''));
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        status: 'degraded',
        version: testEnv().config.version,
        services: { database: 'connected', cache: 'connected', vector_store: 'connected', workflow_engine: 'connected' },
        workers: { workflow_pollers: 0, activity_pollers: 0 },
        bulk_workers: { workflow_pollers: 0, activity_pollers: 0 },
      });
    });
  });

  it('is degraded when no worker polls the bulk task queue, though interactive work is served', async () => {
    await withSecondApi({ TEMPORAL_BULK_TASK_QUEUE: `unpolled-bulk-${Date.now()}` }, async (base) => {
      const res = await health(base.replace(/\/api\/v1$/, ''));
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('degraded');
      expect(res.body.workers?.activity_pollers).to.be.at.least(1);
      expect(res.body.bulk_workers).to.deep.equal({ workflow_pollers: 0, activity_pollers: 0 });
    });
  });

  describe('when an engine stops', function () {
    this.timeout(120000);
    let redis: EngineProcess, store: Awaited<ReturnType<typeof startFerretDb>>, apiProc: EngineProcess;
    let esLink: Awaited<ReturnType<typeof startTcpProxy>>;

    before(async () => {
      // An API process of its own, on a store, cache and search link that this test may break.
      [redis, store] = await Promise.all([startRedis(), startFerretDb()]);
      const es = new URL(testEnv().config.ELASTICSEARCH_URL);
      esLink = await startTcpProxy({ host: es.hostname, port: Number(es.port) });
      apiProc = await startApiProcess({
        ...testEnvironment(),
        REDIS_URL: redis.url,
        MONGODB_URI: store.url,
        ELASTICSEARCH_URL: `http://127.0.0.1:${esLink.port}`,
      });
    });
    after(async () => {
      await apiProc?.stop();
      await Promise.all([redis?.stop(), store?.stop(), esLink?.close()]);
    });

    it('is degraded without the vector store, healthy again when it returns', async () => {
      esLink.cut();
      const down = await health(apiProc.url);
      expect(down.status).to.equal(200);
      expect(down.body.status).to.equal('degraded');
      expect(down.body.services.vector_store).to.equal('disconnected');
      expect(down.body.services.database).to.equal('connected');
      esLink.restore();
      const up = await health(apiProc.url);
      expect(up.body.status).to.equal('healthy');
    });

    it('is degraded when Redis stops', async () => {
      await redis.stop();
      const res = await health(apiProc.url);
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('degraded');
      expect(res.body.services.cache).to.equal('disconnected');
      expect(res.body.services.vector_store).to.equal('connected');
    });

    it('answers 503 when the store stops, and recovers without a restart when it returns', async () => {
      await store.stop();
      const res = await health(apiProc.url);
      expect(res.status).to.equal(503);
      expect(res.body.services.database).to.equal('disconnected');
      store = await startFerretDb({ port: store.port, dir: store.dir });
      const started = Date.now();
      await waitFor(async () => (await health(apiProc.url)).status === 200, 30000, 'health after the store returned');
      expect((await health(apiProc.url)).body.services.database).to.equal('connected');
      console.log(`      store back: /health 200 again after ${Date.now() - started} ms`);
    });
  });
});

describe('errors', () => {
  it('answers unknown routes with 404 and a detail', async () => {
    const res = await api('GET', '/no-such-thing', { base: testEnv().hostUrl });
    expect(res.status).to.equal(404);
    expect(res.body).to.have.property('detail').that.is.a('string');
  });

  it('answers malformed JSON with 400 and a detail', async () => {
    const res = await api('POST', '/no-such-thing', { rawBody: '{"title": ' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ detail: 'Request body is not valid JSON' });
  });

  it('carries a request id, echoing a safe incoming one', async () => {
    const res = await api('GET', '/health', { base: testEnv().hostUrl, headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).to.equal('abc-123');
    const generated = await api('GET', '/health', { base: testEnv().hostUrl, headers: { 'x-request-id': 'not a valid id!' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
