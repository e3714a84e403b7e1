/**
 * One test environment per `npm test` run, on the real engines started by
 * scripts/test.sh: a fresh database, index prefix and task queue of its own (so runs on
 * one machine never see each other's data), the API on an ephemeral port, and a worker.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import mongoose from 'mongoose';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { loadConfig, type Config } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { closeEngines, type Engines, type WriteFollower } from '../../platform/engines';
import { createApp } from '../../api/app';
import { createWorkers } from '../../workers/worker';
import { relayOnRecord, startEngines, startRelayLoop } from '../../services/wiring';

export interface TestEnv {
  config: Config;
  services: Engines;
  baseUrl: string;
  hostUrl: string;
}

const runId = randomBytes(4).toString('hex');

/** Environment for code under test: the run's own names on the shared engines. */
export function testEnvironment(): Record<string, string | undefined> {
  const mongo = new URL(process.env.MONGODB_URI ?? loadConfig({ NODE_ENV: 'test' }).MONGODB_URI);
  mongo.pathname = `/clm_test_${runId}`;
  return {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    MONGODB_URI: mongo.toString(),
    ELASTICSEARCH_INDEX_PREFIX: `test_${runId}_`,
    TEMPORAL_TASK_QUEUE: `test-${runId}`,
    REDIS_KEY_PREFIX: `clm-test-${runId}`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    UPLOAD_DIR: `.stack/test-uploads/${runId}`,
  };
}

let env: TestEnv | undefined;
let server: Server | undefined;
let workers: Worker[] = [];
let workerRun: Promise<void> | undefined;
let workerConnection: NativeConnection | undefined;
let relayLoop: ReturnType<typeof startRelayLoop> | undefined;

export async function startTestEnv(): Promise<TestEnv> {
  const config = loadConfig(testEnvironment());
  const services = await startEngines(config, createLogger(config, 'test'));
  server = createApp(services).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server!.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  workerConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  await runWorkers(services);
  relayLoop = startRelayLoop(services);
  env = { config, services, hostUrl: `http://127.0.0.1:${port}`, baseUrl: `http://127.0.0.1:${port}/api/v1` };
  return env;
}

async function runWorkers(services: Engines): Promise<void> {
  workers = await createWorkers(services, workerConnection!);
  // A worker that stops on its own fails every later test with a timeout; say why at once.
  workerRun = Promise.all(workers.map((w) => w.run()))
    .then(() => undefined)
    .catch((err: unknown) => {
      console.error('test worker stopped:', err);
    });
}

/** Stops the run's workers (they finish the activities they run) and starts new ones on the same task queues: a worker restart. */
export async function restartWorker(): Promise<void> {
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  await workerRun;
  await runWorkers(testEnv().services);
}

/** Deletes the run's indices by name: Elasticsearch 8 refuses wildcard deletes (action.destructive_requires_name). */
async function deleteIndices(services: Engines, prefix: string): Promise<void> {
  const indices = await services.es.cat
    .indices({ index: `${prefix}*`, h: 'index', format: 'json', expand_wildcards: 'all' })
    .catch(() => []);
  const names = indices.map((i) => i.index).filter((name): name is string => !!name?.startsWith(prefix));
  if (names.length) await services.es.indices.delete({ index: names.join(','), ignore_unavailable: true }).catch(() => undefined);
}

export async function stopTestEnv(): Promise<void> {
  if (!env) return;
  await relayLoop?.stop();
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  await workerRun;
  await workerConnection?.close();
  await new Promise((resolve) => server?.close(resolve));
  await mongoose.connection.db?.dropDatabase();
  await deleteIndices(env.services, env.config.ELASTICSEARCH_INDEX_PREFIX);
  await closeEngines(env.services);
  env = undefined;
}

export function testEnv(): TestEnv {
  if (!env) throw new Error('test environment not started');
  return env;
}

/**
 * Runs `fn` with the /api/v1 base of a second API instance on the run's services, its
 * configuration changed by `overrides` and any service replaced by `replace` (e.g. another AI
 * provider), and with `followers` following its writes (as startEngines starts them in a process).
 */
export async function withSecondApi(
  overrides: Partial<Config>,
  fn: (base: string, services: Engines) => Promise<void>,
  replace: Partial<Engines> = {},
  followers: readonly WriteFollower[] = [],
): Promise<void> {
  const { services } = testEnv();
  const secondServices: Engines = { ...services, ...replace, config: { ...services.config, ...overrides } };
  const stops = await Promise.all(followers.map(async (follow) => follow(secondServices)));
  const second: Server = createApp(secondServices).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => second.once('listening', () => resolve()));
  try {
    await fn(`http://127.0.0.1:${(second.address() as AddressInfo).port}/api/v1`, secondServices);
  } finally {
    stops.forEach((stop) => stop());
    await new Promise((resolve) => second.close(resolve));
    // createApp pointed the process's immediate relay at the second API's settings (one app per
    // process in production); events recorded later must again start workflows where the test worker polls.
    relayOnRecord(services);
  }
}
