/**
 * Worker entry point: a Temporal worker per class of work this process serves
 * (`WORKER_QUEUES`, both by default), each on its class's task queue running every workflow
 * in workflows/ and every activity in activities/. The bulk worker takes only a few tasks at
 * a time, so the interactive one always has CPU and slots. SIGTERM/SIGINT drain them.
 */
import { setFlagsFromString } from 'node:v8';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import type { Engines } from '../platform/engines';
import { getConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { closeEngines } from '../platform/engines';
import { createActivities } from '../activities';
import { relayOnRecord, startEngines, startRelayLoop } from '../services/wiring';
import { ensureSchedules } from '../services/contracts/schedules';
import { resealLegacySecrets } from '../services/secrets/reseal-legacy-secrets';
import { startEmbeddingMigration } from '../services/search/embedding-migration';
import { upgradeCollections } from '../services/search/vector-store';
import { startHeartbeat } from './heartbeat';
import { taskQueueOf } from '../platform/temporal/task-queues';
import type { WorkClass } from '../platform/temporal/workflow-ref';
import { ensureSearchGeneration } from '../services/search/start-search-reindex';
import { replanRenewalRuns } from '../services/contracts/renewal-deadlines';
import { followSearchWrites } from '../services/search/reflect-contracts';

/** What a class's worker may run at once: interactive work the SDK's defaults, bulk work a few slots. */
function limits(s: Engines, workClass: WorkClass): Partial<WorkerOptions> {
  if (workClass === 'interactive') return {};
  const { WORKER_BULK_ACTIVITY_SLOTS: activities, WORKER_BULK_WORKFLOW_TASK_SLOTS: workflowTasks } = s.config;
  return {
    maxConcurrentActivityTaskExecutions: activities,
    maxConcurrentLocalActivityExecutions: activities,
    maxConcurrentWorkflowTaskExecutions: workflowTasks,
  };
}

/**
 * The workers of the classes `s.config.WORKER_QUEUES` names, sharing one workflow bundle. When
 * both classes have one queue (TEMPORAL_BULK_TASK_QUEUE = TEMPORAL_TASK_QUEUE), one worker
 * with the interactive limits serves it.
 */
export async function createWorkers(s: Engines, connection: NativeConnection): Promise<Worker[]> {
  const queues = new Map<string, WorkClass>();
  for (const workClass of s.config.WORKER_QUEUES) {
    const queue = taskQueueOf(s.config, workClass);
    if (queues.get(queue) !== 'interactive') queues.set(queue, workClass);
  }
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: Runtime.instance().logger });
  const activities = createActivities(s);
  return Promise.all(
    [...queues].map(([taskQueue, workClass]) =>
      Worker.create({
        connection,
        namespace: s.config.TEMPORAL_NAMESPACE,
        taskQueue,
        workflowBundle,
        activities,
        ...limits(s, workClass),
      }),
    ),
  );
}

async function main() {
  // V8 lets the heap grow to several times its live size between full collections.
  // Ingestion allocates fast and briefly (vectors, bulk bodies), so the worker's memory grew
  // with the file; collecting at 1.2 × live keeps it flat at no measured cost in throughput
  // (bench/README.md, ingestion).
  setFlagsFromString('--heap-growing-percent=20');
  // From the start: a worker blocked while it starts is as stuck as one blocked later.
  startHeartbeat();
  const config = getConfig();
  const logger = createLogger(config, 'worker');
  const services = await startEngines(config, logger);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const workers = await createWorkers(services, connection);
  const schedules = await ensureSchedules(services.temporal, config);
  // Before polling: the activities would find the collections being moved refusing writes. If
  // Elasticsearch is down, the old indices keep serving and the next start moves them.
  const upgraded = await upgradeCollections(services).catch((err: unknown) => {
    logger.error({ err }, 'vector collections not upgraded');
    return [];
  });
  // Chunks another embedding model made are invisible to search until re-embedded.
  const migration = await startEmbeddingMigration(services);
  // A search index of an older mapping generation (or none) is rebuilt from the store.
  const searchReindex = await ensureSearchGeneration(services).catch((err: unknown) => {
    logger.error({ err }, 'search reindex not started');
    return null;
  });
  const renewalReplan = await replanRenewalRuns(services).catch((err: unknown) => {
    logger.error({ err }, 'renewal runs not asked to plan again');
    return null;
  });
  // Secrets sealed under the raw ENCRYPTION_KEY, sealed again under its derived key (they open either way meanwhile).
  const resealed = await resealLegacySecrets(services).catch((err: unknown) => {
    logger.error({ err }, 'legacy secrets not resealed; they still open, and the next start tries again');
    return null;
  });
  followSearchWrites(services);
  // The worker also relays: its activities record events, and the loop catches up on any
  // event whose immediate relay failed (e.g. Temporal was down when it happened).
  relayOnRecord(services);
  const relay = startRelayLoop(services);
  logger.info(
    {
      taskQueues: workers.map((w) => w.options.taskQueue),
      temporalUi: config.TEMPORAL_UI_URL,
      schedules,
      migration,
      upgraded,
      searchReindex,
      renewalReplan,
      resealed,
    },
    'worker running',
  );
  await Promise.all(workers.map((w) => w.run()));
  await relay.stop();
  await connection.close();
  await closeEngines(services);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
