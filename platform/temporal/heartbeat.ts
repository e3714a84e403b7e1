/**
 * Heartbeats for long activity steps: Temporal notices a dead worker after the activity's
 * heartbeat timeout (seconds) instead of its whole start-to-close budget (minutes).
 */
import { Context } from '@temporalio/activity';

/** How often a running step tells Temporal it is alive, well inside a 30 s heartbeat timeout. */
const HEARTBEAT_EVERY_MS = 5000;

/**
 * Runs `step` while heartbeating on a timer, so a long awaited call (an embedding request, a
 * bulk write, a vendor call) keeps the activity alive and only a dead worker stops the beat.
 * Call it inside an activity; `details` is read at each beat (progress for a retry to see).
 */
export async function whileBeating<T>(details: () => unknown, step: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat(details());
  const timer = setInterval(() => ctx.heartbeat(details()), HEARTBEAT_EVERY_MS);
  try {
    return await step();
  } finally {
    clearInterval(timer);
  }
}
