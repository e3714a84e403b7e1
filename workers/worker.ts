/**
 * Worker entry point: one Temporal worker on the configured task queue running every
 * workflow in workflows/ and every activity in activities/. SIGTERM/SIGINT drain it.
 */
import { setFlagsFromString } from 'node:v8';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Services } from '../platform/services';
import { getConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { closeServices, createServices } from '../platform/services';
import { createActivities } from '../activities';
import { relayOnRecord, startRelayLoop } from '../services/wiring';
import { ensureSchedules } from '../services/contracts/schedules';
import { startEmbeddingMigration } from '../services/search/embedding-migration';
import { upgradeCollections } from '../services/search/vector-store';
import { ensureSearchGeneration } from '../services/search/start-search-reindex';
import { followSearchWrites } from '../services/search/reflect-contracts';

export async function createWorker(s: Services, connection: NativeConnection, taskQueue = s.config.TEMPORAL_TASK_QUEUE) {
  return Worker.create({
    connection,
    namespace: s.config.TEMPORAL_NAMESPACE,
    taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities(s),
  });
}

async function main() {
  // V8 lets the heap grow to several times its live size between full collections.
  // Ingestion allocates fast and briefly (vectors, bulk bodies), so the worker's memory grew
  // with the file; collecting at 1.2 × live keeps it flat at no measured cost in throughput
  // (bench/README.md, ingestion).
  setFlagsFromString('--heap-growing-percent=20');
  const config = getConfig();
  const logger = createLogger(config, 'worker');
  const services = await createServices(config, logger);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker(services, connection);
  const schedules = await ensureSchedules(services.temporal, config.TEMPORAL_TASK_QUEUE);
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
  followSearchWrites(services);
  // The worker also relays: its activities record events, and the loop catches up on any
  // event whose immediate relay failed (e.g. Temporal was down when it happened).
  relayOnRecord(services);
  const relay = startRelayLoop(services);
  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, temporalUi: config.TEMPORAL_UI_URL, schedules, migration, upgraded, searchReindex },
    'worker running',
  );
  await worker.run();
  await relay.stop();
  await connection.close();
  await closeServices(services);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
