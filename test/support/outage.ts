/**
 * A Temporal dev server, API and worker of a test's own, on a database of their own, with a
 * registered owner: stopping this Temporal touches nothing else in the run, and the shared
 * run's relay never delivers these events through the shared Temporal. With `sharedTemporal`
 * the processes use the shared server on a task queue of their own (for a test that breaks
 * something else, e.g. the SMTP server in `env`).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { api } from './http';
import { testEnvironment } from './env';
import { freePort, startApiProcess, startTemporalDevServer, startWorkerProcess, type EngineProcess } from './processes';

export interface OutageStack {
  /** The API's /api/v1 base URL and an owner's access token. */
  base: string;
  token: string;
  /** The owner's address (its verification message goes to this stack's SMTP server too). */
  email: string;
  worker: ReturnType<typeof startWorkerProcess>;
  stopTemporal(): Promise<void>;
  /** Starts Temporal again on the same port and data. */
  startTemporal(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOutageStack(
  label: string,
  opts: { env?: Record<string, string>; sharedTemporal?: boolean } = {},
): Promise<OutageStack> {
  const id = randomBytes(4).toString('hex');
  const dbFile = path.join(os.tmpdir(), `temporal-${label}-${id}.db`);
  const mongo = new URL(testEnvironment().MONGODB_URI!);
  mongo.pathname = `${mongo.pathname}_${label}`;
  const port = await freePort();
  let temporal: EngineProcess | undefined = opts.sharedTemporal ? undefined : await startTemporalDevServer(port, dbFile);
  const shared = testEnvironment();
  // Data of its own everywhere: its worker would otherwise start the run's search rebuild on
  // its own queue, and leave it there, stranded, when the stack stops.
  const env = {
    ...shared,
    MONGODB_URI: mongo.toString(),
    ELASTICSEARCH_INDEX_PREFIX: `${shared.ELASTICSEARCH_INDEX_PREFIX}${label}_${id}_`,
    REDIS_KEY_PREFIX: `${shared.REDIS_KEY_PREFIX}:${label}-${id}`,
    ...(temporal ? { TEMPORAL_ADDRESS: temporal.url } : {}),
    TEMPORAL_TASK_QUEUE: `${label}-${id}`,
    ...opts.env,
  };
  const apiProc = await startApiProcess(env);
  const worker = startWorkerProcess(env);
  const base = `${apiProc.url}/api/v1`;
  const email = `${label}-${id}@example.test`;
  const register = await api<{ access_token: string }>('POST', '/auth/register', {
    base,
    body: { email, password: 'outage-password-1', full_name: 'Outage Owner' },
  });
  if (register.status !== 201) throw new Error(`register failed: ${register.status} ${register.text}`);
  // This stack's mail may go to an SMTP server the test breaks on purpose, so the owner's address
  // is marked verified in the stack's own database (test/support/auth.ts verifies through the link).
  await mongoose.connection
    .useDb(mongo.pathname.slice(1))
    .collection('users')
    .updateOne({ email }, { $set: { email_verified_at: new Date() } });
  return {
    base,
    token: register.body.access_token,
    email,
    worker,
    async stopTemporal() {
      if (opts.sharedTemporal) throw new Error('this stack uses the shared Temporal');
      await temporal?.stop();
      temporal = undefined;
    },
    async startTemporal() {
      if (opts.sharedTemporal) throw new Error('this stack uses the shared Temporal');
      temporal = await startTemporalDevServer(port, dbFile);
    },
    async stop() {
      await Promise.all([worker.stop(), apiProc.stop()]);
      await temporal?.stop();
      await mongoose.connection.useDb(mongo.pathname.slice(1)).dropDatabase();
    },
  };
}
