import { Router } from 'express';
import type { Services } from '../../lib/services';
import { pingMongo, withTimeout } from '../../lib/mongo';
import { pingElasticsearch } from '../../lib/elasticsearch';
import { pingTemporal } from '../../lib/temporal';

const CHECK_TIMEOUT_MS = 1500;
const state = (ok: boolean) => (ok ? 'connected' : 'disconnected');

/**
 * `GET /health` (public): real checks of every engine, run in parallel with short
 * timeouts. The database is essential (503 without it); the others degrade the service.
 */
export function healthRouter(s: Services): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const [database, cache, vectorStore, workflowEngine] = await Promise.all([
      pingMongo(CHECK_TIMEOUT_MS),
      withTimeout(s.redis.ping().then((r) => r === 'PONG'), CHECK_TIMEOUT_MS),
      pingElasticsearch(s.es, CHECK_TIMEOUT_MS),
      pingTemporal(s.temporalConnection, CHECK_TIMEOUT_MS),
    ]);
    const allUp = database && cache && vectorStore && workflowEngine;
    res.status(database ? 200 : 503).json({
      status: allUp ? 'healthy' : database ? 'degraded' : 'unhealthy',
      version: s.config.version,
      services: {
        database: state(database),
        cache: state(cache),
        vector_store: state(vectorStore),
        workflow_engine: state(workflowEngine),
      },
    });
  });
  return router;
}
