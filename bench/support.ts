/**
 * What the benchmarks share: a run's own names on the shared engines (database, index
 * prefix, task queue, rate-limit counters), the API in this process, a registered user,
 * percentiles, process memory, and the clean-up that removes everything a run made.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import mongoose from 'mongoose';
import { temporal } from '@temporalio/proto';
import { isGrpcServiceError } from '@temporalio/client';
import { loadConfig, type Config } from '../platform/config';
import { createLogger } from '../platform/logger';
import { closeEngines, type Engines } from '../platform/engines';
// After the app, as in api/server.ts: services' schemas must be made after zod is extended for OpenAPI.
import { createApp } from '../api/app';
import { startEngines } from '../services/wiring';
import { WORK_CLASSES, taskQueueOf } from '../platform/temporal/task-queues';
import { repoRoot } from '../test/support/processes';
import { User } from '../models/user';

/** Environment of one benchmark run: its own names, no logging, limits out of the way. */
export function benchEnvironment(name: string): Record<string, string | undefined> {
  const run = `${name}_${randomBytes(3).toString('hex')}`;
  const mongo = new URL(process.env.MONGODB_URI ?? loadConfig({ NODE_ENV: 'development' }).MONGODB_URI);
  mongo.pathname = `/clm_bench_${run}`;
  return {
    ...process.env,
    // The local stack: its development secrets and localhost receivers (platform/config.ts).
    NODE_ENV: 'development',
    MONGODB_URI: mongo.toString(),
    LOG_LEVEL: 'silent',
    TEMPORAL_TASK_QUEUE: `bench-${run}`,
    ELASTICSEARCH_INDEX_PREFIX: `bench_${run}_`,
    RATE_LIMIT_DEFAULT_PER_MINUTE: '100000000',
    RATE_LIMIT_ORGANIZATION_PER_MINUTE: '100000000',
    MAIL_RECIPIENTS_PER_ORG_PER_DAY: '100000000',
    REDIS_KEY_PREFIX: `clm-bench-${run}`,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    UPLOAD_DIR: `.stack/bench-uploads/${run}`,
  };
}

export interface Bench {
  config: Config;
  env: Record<string, string | undefined>;
  services: Engines;
}

/** Connects this process to the engines under the run's names. */
export async function openBench(name: string, overrides: Record<string, string> = {}): Promise<Bench> {
  const env = { ...benchEnvironment(name), ...overrides };
  const config = loadConfig(env);
  return { config, env, services: await startEngines(config, createLogger(config, 'bench')) };
}

/** Visibility's filter for the workflows of the run's task queues (interactive and bulk). */
export const runQueuesQuery = (config: Config) => `TaskQueue IN (${WORK_CLASSES.map((c) => `"${taskQueueOf(config, c)}"`).join(', ')})`;

/** gRPC status code 8: the server runs only a few batch operations at once. */
const GRPC_RESOURCE_EXHAUSTED = 8;

/**
 * Removes what the run made: workflows still running on its task queues (terminated in the
 * background), its database, its indices (by name: Elasticsearch 8 refuses wildcard
 * deletes) and its upload directory.
 */
export async function closeBench({ config, services: s }: Bench): Promise<void> {
  // One batch operation: terminating thousands of workflows one by one takes minutes. The
  // server runs only a few at once (RESOURCE_EXHAUSTED) and the previous benchmark's may
  // still be terminating thousands, so a run with workflows to end waits its turn.
  const namespace = config.TEMPORAL_NAMESPACE;
  const visibilityQuery = `${runQueuesQuery(config)} AND ExecutionStatus = "Running"`;
  const { count } = await s.temporal.workflowService.countWorkflowExecutions({ namespace, query: visibilityQuery });
  const request = { namespace, visibilityQuery, reason: 'benchmark finished', terminationOperation: {} };
  for (const deadline = Date.now() + 600_000; Number(count) > 0;) {
    try {
      await s.temporal.workflowService.startBatchOperation({ ...request, jobId: randomUUID() });
      break;
    } catch (err) {
      if (!isGrpcServiceError(err) || Number(err.code) !== GRPC_RESOURCE_EXHAUSTED || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  await mongoose.connection.db?.dropDatabase();
  const prefix = config.ELASTICSEARCH_INDEX_PREFIX;
  const indices = await s.es.cat.indices({ index: `${prefix}*`, h: 'index', format: 'json' }).catch(() => []);
  const names = indices.map((i) => i.index).filter((n): n is string => !!n?.startsWith(prefix));
  if (names.length) await s.es.indices.delete({ index: names.join(','), ignore_unavailable: true }).catch(() => undefined);
  rmSync(config.UPLOAD_DIR, { recursive: true, force: true });
  await closeEngines(s);
}

/**
 * Waits until a worker polls the run's task queue (a worker process takes seconds to bundle
 * its workflows); with `pid`, the worker process of that pid (Temporal still lists a
 * stopped worker's pollers for a while).
 */
export async function waitForWorker({ config, services: s }: Bench, timeoutMs = 120_000, pid?: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const queue = await s.temporal.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    // The SDK's default worker identity is `<pid>@<host>`.
    if (queue.pollers?.some((p) => pid === undefined || p.identity?.startsWith(`${pid}@`))) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no worker polls ${config.TEMPORAL_TASK_QUEUE}`);
}

export async function listen(app: Express): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The full API (every middleware) in this process. */
export const listenApi = (b: Bench) => listen(createApp(b.services));

export interface BenchUser {
  token: string;
  userId: string;
  organizationId: string;
}

/** A new organization and its owner, through the API at `apiUrl` (…/api/v1). */
export async function registerUser(apiUrl: string, label = 'bench'): Promise<BenchUser> {
  const res = await fetch(`${apiUrl}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `${label}-${randomBytes(4).toString('hex')}@example.test`,
      password: 'bench-password-1',
      full_name: 'Bench',
      organization_name: `Bench ${label}`,
    }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { access_token: string; user: { id: string; organization_id: string } };
  // Benchmarks send signing requests and invitations, which need a verified owner; the link
  // itself is tested in test/component/identity/email-verification.test.ts.
  await User.updateOne({ _id: body.user.id }, { $set: { email_verified_at: new Date() } });
  return { token: body.access_token, userId: body.user.id, organizationId: body.user.organization_id };
}

/** The p-th percentile (nearest rank) of samples. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export const ms = (x: number) => `${Math.abs(x) < 10 ? x.toFixed(1) : x.toFixed(0)} ms`;

/** A difference in milliseconds with its sign: "+3.2 ms", "-1.0 ms". */
export const signedMs = (x: number) => `${x >= 0 ? '+' : ''}${ms(x)}`;

/** "p50 12 ms, p95 30 ms" of samples in milliseconds. */
export const latencies = (samples: readonly number[], ps: readonly number[] = [50, 95]) =>
  ps.map((p) => `p${p} ${ms(percentile(samples, p))}`).join(', ');

/** Resident memory of a process from /proc, in MiB: now (VmRSS) and the peak (VmHWM). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** CPU seconds (user + system, all threads) a process and its live child processes have used. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  // A child may have been started by any thread of the process (the JVM's launcher does that).
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
  return own + children.reduce((sum, child) => sum + (existsSync(`/proc/${child}`) ? cpuSeconds(child) : 0), 0);
}

/** Linux USER_HZ: /proc reports CPU times in these ticks on every common platform. */
const CLOCK_TICKS = 100;

/** The local engines' processes (scripts/stack.sh writes their pids), by name. */
export function enginePids(): Record<string, number> {
  const dir = path.join(repoRoot, '.stack/run');
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.pid'))
      .map((f) => [f.replace(/\.pid$/, ''), Number(readFileSync(path.join(dir, f), 'utf8').trim())]),
  );
}

/** Starts counting the CPU seconds of named processes; the returned function reads the counts so far. */
export function cpuMeter(pids: Record<string, number>): () => Record<string, string> {
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  return () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, `${(cpuSeconds(pid) - start[name]!).toFixed(1)} s`]));
}

/** The load averages over 1, 5 and 15 minutes: "1.52 1.10 0.80". */
export const loadNow = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Resets a process's peak resident memory (VmHWM) to its current size (Linux clear_refs 5). */
export const resetPeakMemory = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

/** Runs a benchmark's main and exits with its outcome (open handles must not keep it alive). */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
