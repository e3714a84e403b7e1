import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { pingMongo, withTimeout } from '../../platform/mongo';
import { pingElasticsearch } from '../../platform/elasticsearch';
import { pingTemporal } from '../../platform/temporal/client';
import { workerPollers } from '../../platform/temporal/worker-pollers';
import { taskQueueOf } from '../../platform/temporal/task-queues';
import type { WorkClass } from '../../platform/temporal/workflow-ref';
import '../operations/health';

const CHECK_TIMEOUT_MS = 1500;
const state = (ok: boolean) => (ok ? 'connected' : 'disconnected');

/**
 * `GET /health` (public): real checks of every engine, run in parallel with short
 * timeouts. The database is essential (503 without it); the others degrade the service,
 * and so does a task queue (interactive or bulk) no worker polls (uploads and events would pile up unprocessed):
 * still 200, so load balancers keep serving the API.
 */
export function healthRouter(s: Engines): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    const pollersOf = (workClass: WorkClass) =>
      workerPollers(s.temporalConnection, s.config.TEMPORAL_NAMESPACE, taskQueueOf(s.config, workClass), CHECK_TIMEOUT_MS);
    const [database, cache, vectorStore, workflowEngine, workers, bulkWorkers] = await Promise.all([
      pingMongo(CHECK_TIMEOUT_MS),
      withTimeout(
        s.redis.ping().then((r) => r === 'PONG'),
        CHECK_TIMEOUT_MS,
      ),
      pingElasticsearch(s.es, CHECK_TIMEOUT_MS),
      pingTemporal(s.temporalConnection, CHECK_TIMEOUT_MS),
      pollersOf('interactive'),
      pollersOf('bulk'),
    ]);
    const polled = [workers, bulkWorkers].every((w) => !!w && w.workflow_pollers > 0 && w.activity_pollers > 0);
    const allUp = database && cache && vectorStore && workflowEngine && polled;
    res.status(database ? 200 : 503).json({
      status: allUp ? 'healthy' : database ? 'degraded' : 'unhealthy',
      version: s.config.version,
      services: {
        database: state(database),
        cache: state(cache),
        vector_store: state(vectorStore),
        workflow_engine: state(workflowEngine),
      },
      workers,
      bulk_workers: bulkWorkers,
    });
  });
  return router;
}
