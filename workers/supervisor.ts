/**
 * What `npm start` (and a deployment without a process manager of its own) runs for the
 * worker: workers/worker.ts as a child process, started again whenever it dies, after 1 s,
 * 2 s, 4 s … up to a minute (back to 1 s once a run has lasted 5 minutes), so a worker
 * killed by a bad file or an outage comes back without a crash loop. Each death is logged
 * with its exit code or signal and the last lines the worker wrote to stderr, where V8 says
 * when the heap ran out. A worker that is alive but stuck (its event loop blocked, so it
 * polls no more) sends no heartbeat over IPC (workers/heartbeat.ts); after
 * `heartbeatTimeoutMs` without one it is killed and restarted the same way. SIGTERM and
 * SIGINT stop the worker (it drains) and then this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { getConfig } from '../platform/config';
import { createLogger, type Logger } from '../platform/logger';
import { HEARTBEAT_INTERVAL_MS, isHeartbeat } from './heartbeat';

export interface SuperviseOptions {
  command: string;
  args: string[];
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  minDelayMs?: number;
  maxDelayMs?: number;
  /** A run that lasted this long was healthy: the next restart waits minDelayMs again. */
  stableAfterMs?: number;
  /** A worker silent this long (no heartbeat since it started or since its last one) is killed and restarted. */
  heartbeatTimeoutMs?: number;
}

const STDERR_LINES = 20;

export function supervise({
  command,
  args,
  logger,
  env = process.env,
  minDelayMs = 1000,
  maxDelayMs = 60_000,
  stableAfterMs = 5 * 60_000,
  // Twelve missed heartbeats: a loaded machine or a long start (bundling the workflows) is not a hang.
  heartbeatTimeoutMs = 12 * HEARTBEAT_INTERVAL_MS,
}: SuperviseOptions) {
  let child: ChildProcess | undefined;
  let stopping = false;
  let delay = minDelayMs;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopped: () => void = () => {};
  const done = new Promise<void>((resolve) => (stopped = resolve));

  function start() {
    const startedAt = Date.now();
    const tail: string[] = [];
    const proc = spawn(command, args, { env, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    child = proc;
    logger.info({ workerPid: proc.pid }, 'worker started');
    let lastBeat = startedAt;
    proc.on('message', (message) => {
      if (isHeartbeat(message)) lastBeat = Date.now();
    });
    const watchdog = setInterval(
      () => {
        const silentMs = Date.now() - lastBeat;
        if (silentMs < heartbeatTimeoutMs || stopping) return;
        clearInterval(watchdog);
        logger.error(
          { workerPid: proc.pid, silentMs },
          `worker sent no heartbeat for ${Math.round(silentMs / 1000)} s (stuck, polling no more); killing it`,
        );
        proc.kill('SIGKILL');
      },
      Math.min(1000, heartbeatTimeoutMs / 4),
    );
    proc.stderr?.on('data', (b: Buffer) => {
      process.stderr.write(b);
      tail.push(
        ...b
          .toString()
          .split('\n')
          .filter((l) => l.trim()),
      );
      tail.splice(0, Math.max(0, tail.length - STDERR_LINES));
    });
    proc.on('error', (err) => logger.error({ err }, 'worker could not be started'));
    proc.on('close', (code, signal) => {
      clearInterval(watchdog);
      child = undefined;
      if (stopping) {
        logger.info({ code, signal }, 'worker stopped');
        return stopped();
      }
      const ranMs = Date.now() - startedAt;
      if (ranMs >= stableAfterMs) delay = minDelayMs;
      logger.error(
        { workerPid: proc.pid, code, signal, ranMs, restartInMs: delay, stderr: tail.join('\n') },
        `worker died (${signal ? `signal ${signal}` : `exit code ${code}`}) after ${Math.round(ranMs / 1000)} s; restarting in ${delay / 1000} s`,
      );
      restartTimer = setTimeout(start, delay);
      delay = Math.min(delay * 2, maxDelayMs);
    });
  }

  start();
  return {
    /** The running worker's pid, if one runs. */
    pid: () => child?.pid,
    /** Stops the worker (SIGTERM: it drains) and restarts no more. */
    stop(): Promise<void> {
      stopping = true;
      clearTimeout(restartTimer);
      if (child) child.kill('SIGTERM');
      else stopped();
      return done;
    },
  };
}

function main() {
  const logger = createLogger(getConfig(), 'supervisor');
  // The compiled worker beside this file; run from source, through tsx.
  const worker = path.join(__dirname, `worker${path.extname(__filename)}`);
  const args = path.extname(__filename) === '.ts' ? ['--import', 'tsx', worker] : [worker];
  const supervisor = supervise({ command: process.execPath, args, logger });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void supervisor.stop().then(() => process.exit(0)));
  }
}

if (require.main === module) main();
