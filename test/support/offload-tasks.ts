/** Tasks for the offload pool's tests: each runs in a worker thread. */
import { threadId } from 'node:worker_threads';
import { offloadTask } from '../../platform/offload';

export function square(input: { n: number }): { value: number; threadId: number } {
  return { value: input.n * input.n, threadId };
}

/** Keeps its thread busy for `ms` (a loop that never yields), then says which thread it was. */
export function spin(input: { ms: number }): { threadId: number } {
  const until = Date.now() + input.ms;
  while (Date.now() < until);
  return { threadId };
}

export async function fail(input: { message: string }): Promise<never> {
  await Promise.resolve();
  throw new RangeError(input.message);
}

export const squareTask = offloadTask<typeof square>(__filename, 'square');
export const spinTask = offloadTask<typeof spin>(__filename, 'spin');
export const failTask = offloadTask<typeof fail>(__filename, 'fail');
