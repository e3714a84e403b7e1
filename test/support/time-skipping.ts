/** The Java SDK's time-skipping test server, installed by scripts/stack.sh (no download at test time). */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes';

export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const binary = process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(repoRoot, '.stack/bin/temporal-test-server');
  if (!existsSync(binary)) throw new Error(`time-skipping test server not found at ${binary}: run scripts/stack.sh provision`);
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: binary } } });
}

/**
 * A worker on `env`'s server for `taskQueue`, running every workflow and `activities`;
 * the returned function shuts it down (after the activities it runs) and waits for it.
 */
export async function runTimeSkippingWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  activities: object,
  options: Partial<WorkerOptions> = {},
): Promise<() => Promise<void>> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities,
    ...options,
  });
  const running = worker.run();
  return async () => {
    worker.shutdown();
    await running;
  };
}

/**
 * A time-skipping environment with a worker on `taskQueue` running every workflow and
 * `activities`, for a suite's `before` hook; `stop` (its `after` hook) shuts both down.
 */
export async function startTimeSkippingWorker(
  taskQueue: string,
  activities: object,
): Promise<{ env: TestWorkflowEnvironment; stop: () => Promise<void> }> {
  const env = await createTimeSkippingEnv();
  let stopWorker: () => Promise<void>;
  try {
    stopWorker = await runTimeSkippingWorker(env, taskQueue, activities);
  } catch (err) {
    await env.teardown();
    throw err;
  }
  const stop = async () => {
    await stopWorker();
    await env.teardown();
  };
  return { env, stop };
}
