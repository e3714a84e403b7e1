/** The redline as a task of the offload pool (platform/offload.ts): CPU-bound, so never on the API's event loop. */
import type { Engines } from '../../platform/engines';
import { offloadTask, OffloadTimeoutError } from '../../platform/offload';
import { unavailable } from '../../platform/errors';
import type { redlineTexts } from './redline';

const redlineTask = offloadTask<typeof redlineTexts>(require.resolve('./redline'), 'redlineTexts');

/** Bounded work takes well under this even on a loaded machine; past it the thread is stopped. */
const REDLINE_BUDGET_MS = 15_000;

export async function runRedline(s: Engines, input: { a: string; b: string }) {
  try {
    return await s.offload.run(redlineTask, input, { timeoutMs: REDLINE_BUDGET_MS });
  } catch (err) {
    if (err instanceof OffloadTimeoutError) throw unavailable('The redline took too long on a busy server; try again shortly');
    throw err;
  }
}
