/**
 * Pure CPU-bound functions run off the event loop, in a bounded pool of worker threads, so
 * that one caller's large input does not stall every other request of the process.
 *
 * A task is a named export of a module that takes one structured-cloneable input and returns
 * (or resolves to) a structured-cloneable output; the module must not need the process's
 * engines (the thread has none). Each call has a time budget: past it the thread is
 * terminated (whatever it was doing stops), replaced on the next call, and the caller gets an
 * `OffloadTimeoutError`. Calls beyond the pool's size wait in order; the budget counts from
 * when a thread takes the call, so a call never times out for having waited.
 *
 *     export function diffTexts(input: { a: string; b: string }): Change[] { ... }
 *     export const diffTask = offloadTask<typeof diffTexts>(__filename, 'diffTexts');
 *     const changes = await s.offload.run(diffTask, { a, b }, { timeoutMs: 2000 });
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TaskReply, TaskRequest } from './offload-worker';

/** A function a thread can run: its module's absolute path and export name; `I` and `O` are its input and output. */
export interface OffloadTask<I, O> {
  readonly module: string;
  readonly exportName: string;
  /** Carries the types only; never set. */
  readonly signature?: (input: I) => O;
}

/**
 * The task that runs `exportName` of the module at `modulePath` (pass the module's own
 * `__filename`, which names the .ts file under tsx and the .js file once compiled).
 */
export function offloadTask<F extends (input: never) => unknown>(
  modulePath: string,
  exportName: string,
): OffloadTask<Parameters<F>[0], Awaited<ReturnType<F>>> {
  if (!path.isAbsolute(modulePath)) throw new Error(`offloadTask: ${modulePath} is not an absolute path`);
  return { module: modulePath, exportName };
}

type TaskRef = Pick<OffloadTask<unknown, unknown>, 'module' | 'exportName'>;

const taskName = (task: TaskRef) => `${path.basename(task.module)}#${task.exportName}`;

/** The call took longer than its budget; its thread was terminated. */
export class OffloadTimeoutError extends Error {
  override readonly name = 'OffloadTimeoutError';
  constructor(
    readonly task: string,
    readonly timeoutMs: number,
  ) {
    super(`${task} took longer than ${timeoutMs} ms and was stopped`);
  }
}

/** The task threw (its error's name and message, as the thread saw them), or its thread died. */
export class OffloadTaskError extends Error {
  override readonly name = 'OffloadTaskError';
  constructor(
    readonly task: string,
    readonly errorName: string,
    message: string,
  ) {
    super(`${task} failed: ${errorName}: ${message}`);
  }
}

export interface OffloadPool {
  /** Runs `task` on `input` in a thread of the pool, within `timeoutMs` once a thread has taken it. */
  run<I, O>(task: OffloadTask<I, O>, input: I, options: { timeoutMs: number }): Promise<O>;
  /** Threads alive now (started lazily, at most `threads`). */
  readonly size: number;
  /** Terminates every thread; calls still waiting fail. */
  close(): Promise<void>;
}

interface Call {
  id: number;
  task: TaskRef;
  input: unknown;
  timeoutMs: number;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  call?: Call;
  timer?: NodeJS.Timeout;
}

const ENTRY = path.join(__dirname, `offload-worker${path.extname(__filename)}`);
/**
 * Run from source (tests, bench, eval), a thread compiles TypeScript through tsx's CommonJS
 * hook, registered by a small bootstrap (a worker's main script must be .js); compiled
 * (`npm start`, production), it loads the .js directly and needs no tsx.
 */
function startWorker(): Worker {
  // Empty execArgv: the parent's `--import tsx` would also load tsx's ESM loader in each thread.
  if (path.extname(__filename) !== '.ts') return new Worker(ENTRY, { execArgv: [] });
  const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(ENTRY)});`;
  return new Worker(bootstrap, { eval: true, execArgv: [] });
}

export function createOffloadPool(options: { threads: number }): OffloadPool {
  if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error('createOffloadPool: threads must be a positive integer');
  const threads = new Set<Thread>();
  const queue: Call[] = [];
  let nextId = 1;
  let closed = false;

  const send = (thread: Thread, call: Call) => {
    thread.call = call;
    if (!thread.ready) return; // sent when the thread says it is ready
    thread.worker.postMessage({
      id: call.id,
      module: call.task.module,
      exportName: call.task.exportName,
      input: call.input,
    } satisfies TaskRequest);
    thread.timer = setTimeout(() => {
      discard(thread);
      call.reject(new OffloadTimeoutError(taskName(call.task), call.timeoutMs));
    }, call.timeoutMs);
  };

  const stop = (thread: Thread) => {
    clearTimeout(thread.timer);
    threads.delete(thread);
    thread.worker.removeAllListeners();
    thread.worker.on('error', () => {}); // an error while terminating concerns no caller
    return thread.worker.terminate();
  };

  /** Takes a thread out of the pool and stops it; the next call starts a fresh one. */
  const discard = (thread: Thread) => {
    void stop(thread);
    dispatch();
  };

  const finish = (thread: Thread) => {
    clearTimeout(thread.timer);
    thread.timer = undefined;
    thread.call = undefined;
    dispatch();
  };

  const spawn = (): Thread => {
    const thread: Thread = { worker: startWorker(), ready: false };
    // An idle thread does not keep the process alive; a call's timer does while it runs.
    thread.worker.unref();
    thread.worker.on('message', (reply: TaskReply) => {
      if (reply.type === 'ready') {
        thread.ready = true;
        if (thread.call) send(thread, thread.call);
        return;
      }
      const call = thread.call;
      if (!call || reply.id !== call.id) return;
      finish(thread);
      if (reply.ok) call.resolve(reply.value);
      else call.reject(new OffloadTaskError(taskName(call.task), reply.name, reply.message));
    });
    const died = (why: string) => {
      const call = thread.call;
      discard(thread);
      call?.reject(new OffloadTaskError(call ? taskName(call.task) : 'offload', 'ThreadDied', why));
    };
    thread.worker.on('error', (err) => died(err.message));
    thread.worker.on('exit', (code) => died(`the thread exited with code ${code}`));
    threads.add(thread);
    return thread;
  };

  function dispatch() {
    while (queue.length) {
      const idle = [...threads].find((t) => !t.call) ?? (threads.size < options.threads ? spawn() : undefined);
      if (!idle) return;
      send(idle, queue.shift()!);
    }
  }

  return {
    run<I, O>(task: OffloadTask<I, O>, input: I, { timeoutMs }: { timeoutMs: number }): Promise<O> {
      if (closed) return Promise.reject(new Error('the offload pool is closed'));
      return new Promise<O>((resolve, reject) => {
        queue.push({ id: nextId++, task, input, timeoutMs, resolve: resolve as (value: unknown) => void, reject });
        dispatch();
      });
    },
    get size() {
      return threads.size;
    },
    async close() {
      closed = true;
      for (const call of queue.splice(0)) call.reject(new Error('the offload pool is closed'));
      const stopping = [...threads].map((thread) => {
        thread.call?.reject(new Error('the offload pool is closed'));
        return stop(thread);
      });
      await Promise.allSettled(stopping);
    },
  };
}
