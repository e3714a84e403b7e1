/** The OpenAPI description of the health check (api/routes/health.ts serves it). */
import { z } from 'zod';
import { POLLED_WITHIN_MS } from '../../platform/temporal/worker-pollers';
import { operation, registry } from '../http/openapi';

const engineState = z.enum(['connected', 'disconnected']);
const pollers = z
  .object({
    workflow_pollers: z.number().int().min(0),
    activity_pollers: z.number().int().min(0),
  })
  .nullable();
const healthSchema = registry.register(
  'Health',
  z.object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']),
    version: z.string(),
    services: z.object({ database: engineState, cache: engineState, vector_store: engineState, workflow_engine: engineState }),
    workers: pollers.meta({
      description: `Workers that polled the interactive task queue (workflow and activity tasks) in the last ${POLLED_WITHIN_MS / 60000} minutes; none of either kind makes the service degraded. Null when the workflow engine did not answer.`,
    }),
    bulk_workers: pollers.meta({
      description:
        'The same for the bulk task queue (imports, re-extraction, re-indexing): without them bulk work waits, and the service is degraded.',
    }),
  }),
);
operation({
  path: '/health',
  method: 'get',
  tag: 'Health',
  public: true,
  root: true,
  summary: 'Health of every engine (served at the host root, not under /api/v1)',
  responses: {
    200: { description: 'Healthy or degraded', schema: healthSchema },
    503: { description: 'The database is down', schema: healthSchema },
  },
});
