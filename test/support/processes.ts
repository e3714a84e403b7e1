/**
 * Throwaway engine processes and a TCP cut-off for fault tests: a test that stops an
 * engine stops its own instance, never the shared one the rest of the run depends on.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';

export const repoRoot = path.resolve(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });

export interface EngineProcess {
  /** The process id (for memory samples from /proc). */
  pid: number;
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Where a process's output goes: nowhere, or appended to a log file (to read after a failure). */
const outputTo = (logFile?: string): StdioOptions => {
  if (!logFile) return 'ignore';
  const fd = openSync(logFile, 'a');
  return ['ignore', fd, fd];
};

async function startProcess(
  cmd: string,
  args: string[],
  port: number,
  url: string,
  env?: NodeJS.ProcessEnv,
  logFile?: string,
): Promise<EngineProcess> {
  const child: ChildProcess = spawn(cmd, args, { stdio: outputTo(logFile), env: env ?? process.env });
  // Minutes on a loaded machine (a shared one at load 30 took over 30 s to start the API).
  await waitFor(() => portOpen(port), 120000, `${cmd} on :${port}`);
  return {
    pid: child.pid!,
    port,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/**
 * A Redis of the test's own, keeping nothing on disk but what a `SAVE` writes to its `dir`; pass the
 * `port` and `dir` of a stopped one to start it again from that snapshot.
 */
export async function startRedis(again?: { port: number; dir: string }): Promise<EngineProcess & { dir: string }> {
  const port = again?.port ?? (await freePort());
  const dir = again?.dir ?? mkdtempSync(path.join(os.tmpdir(), 'redis-'));
  const engine = await startProcess(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no'],
    port,
    `redis://127.0.0.1:${port}`,
  );
  return { ...engine, dir };
}

/** A FerretDB of the test's own; pass the `port` and `dir` of a stopped one to start it again with its data. */
export async function startFerretDb(again?: { port: number; dir: string }): Promise<EngineProcess & { dir: string }> {
  const port = again?.port ?? (await freePort());
  const dir = again?.dir ?? mkdtempSync(path.join(os.tmpdir(), 'ferretdb-'));
  const engine = await startProcess(
    path.join(repoRoot, '.stack/bin/ferretdb'),
    ['-listen', `127.0.0.1:${port}`, '-data', dir],
    port,
    `mongodb://127.0.0.1:${port}/health_check`,
  );
  return { ...engine, dir };
}

/**
 * A GreenMail of the test's own (the jar scripts/stack.sh fetched): SMTP and its REST API.
 * Pass the ports of a stopped one to start it again where its clients expect it (empty: it
 * keeps mail in memory only).
 */
export async function startGreenMail(again?: {
  smtpPort: number;
  apiPort: number;
}): Promise<EngineProcess & { smtpPort: number; apiPort: number; apiUrl: string }> {
  const downloads = path.join(repoRoot, '.stack/downloads');
  const jar = readdirSync(downloads).find((f) => /^greenmail-standalone-.*\.jar$/.test(f));
  if (!jar) throw new Error('GreenMail not found in .stack/downloads: run scripts/stack.sh provision');
  const smtpPort = again?.smtpPort ?? (await freePort());
  const apiPort = again?.apiPort ?? (await freePort());
  const args = [
    '-Xmx128m',
    `-Dgreenmail.smtp.port=${smtpPort}`,
    '-Dgreenmail.smtp.hostname=127.0.0.1',
    '-Dgreenmail.auth.disabled',
    '-Dgreenmail.api.hostname=127.0.0.1',
    `-Dgreenmail.api.port=${apiPort}`,
    '-jar',
    path.join(downloads, jar),
  ];
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const engine = await startProcess('java', args, smtpPort, `smtp://127.0.0.1:${smtpPort}`);
  await waitFor(async () => (await fetch(`${apiUrl}/api/service/readiness`)).ok, 30000, 'the GreenMail API');
  return { ...engine, smtpPort, apiPort, apiUrl };
}

/** A TCP relay to a real engine whose link can be cut and restored, like a network fault. */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Node's arguments for a service entry point: the compiled JavaScript in dist/ (`npm run
 * build`) when RUN_COMPILED=1, as `npm start` runs it and the benchmarks measure it; else
 * the source through tsx, so tests need no build.
 */
function entryArgs(entry: 'api/server' | 'workers/worker'): string[] {
  return process.env.RUN_COMPILED === '1'
    ? [path.join(repoRoot, 'dist', `${entry}.js`)]
    : ['--import', 'tsx', path.join(repoRoot, `${entry}.ts`)];
}

/** Runs the real API entry point (api/server.ts) as its own process; its output goes to `logFile` when given. */
export async function startApiProcess(env: Record<string, string | undefined>, logFile?: string): Promise<EngineProcess> {
  const port = await freePort();
  return startProcess(
    process.execPath,
    entryArgs('api/server'),
    port,
    `http://127.0.0.1:${port}`,
    { ...env, PORT: String(port), HOST: '127.0.0.1' },
    logFile,
  );
}

/**
 * A Temporal dev server of the test's own, so a test may stop it (never the shared one on :7233);
 * `pragmas` are SQLite settings (`journal_mode=wal`).
 * Resolves once its frontend answers for the default namespace (the port opens earlier).
 */
export async function startTemporalDevServer(port: number, dbFile: string, pragmas: string[] = []): Promise<EngineProcess> {
  const attributes = ['OrganizationId', 'RecordId', 'RecordKind'].flatMap((k) => ['--search-attribute', `${k}=Keyword`]);
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--db-filename',
    dbFile,
    ...attributes,
    ...pragmas.flatMap((p) => ['--sqlite-pragma', p]),
  ];
  const server = await startProcess(path.join(repoRoot, '.stack/bin/temporal'), args, port, `127.0.0.1:${port}`);
  await waitFor(
    async () => {
      const conn = await Connection.connect({ address: server.url, connectTimeout: 1000 });
      try {
        await conn.workflowService.describeNamespace({ namespace: 'default' });
        return true;
      } finally {
        await conn.close();
      }
    },
    60000,
    `the Temporal server on :${port}`,
  );
  return server;
}

/** Runs the real worker entry point (workers/worker.ts, with its relay loop) as its own process; its output goes to `logFile` when given. */
export function startWorkerProcess(env: Record<string, string | undefined>, logFile?: string) {
  const child = spawn(process.execPath, entryArgs('workers/worker'), { stdio: outputTo(logFile), env });
  return {
    pid: child.pid!,
    running: () => child.exitCode === null && child.signalCode === null,
    /** A crash: SIGKILL, no draining, in-flight activities are abandoned. */
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
