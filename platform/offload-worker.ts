/**
 * The main script of an offload thread (platform/offload.ts): it loads a task's module on
 * first use and runs the named export on each input it is sent, one at a time.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

export interface TaskRequest {
  id: number;
  module: string;
  exportName: string;
  input: unknown;
}
export type TaskReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; name: string; message: string };

const load = createRequire(__filename);

async function runTask({ module, exportName, input }: TaskRequest): Promise<unknown> {
  const exported: unknown = (load(module) as Record<string, unknown>)[exportName];
  if (typeof exported !== 'function') throw new TypeError(`${exportName} is not a function exported by ${module}`);
  return await (exported as (input: unknown) => unknown)(input);
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: TaskRequest) => {
    runTask(request).then(
      (value) => port.postMessage({ type: 'result', id: request.id, ok: true, value } satisfies TaskReply),
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        port.postMessage({ type: 'result', id: request.id, ok: false, name: e.name, message: e.message } satisfies TaskReply);
      },
    );
  });
  port.postMessage({ type: 'ready' } satisfies TaskReply);
}
