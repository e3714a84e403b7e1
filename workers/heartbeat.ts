/**
 * The worker's sign of life to workers/supervisor.ts, over the IPC channel the supervisor
 * opens: a message every few seconds from the event loop. A worker stuck in a loop (a
 * runaway parse, a rule that never ends) cannot send it, though its process is alive and
 * its pollers stopped; the supervisor then kills and restarts it.
 */
export const HEARTBEAT = { type: 'heartbeat' } as const;
export const HEARTBEAT_INTERVAL_MS = 5000;

/** Sends heartbeats while this process has a parent listening (does nothing otherwise). */
export function startHeartbeat(intervalMs = HEARTBEAT_INTERVAL_MS): void {
  if (!process.send) return;
  const beat = () => process.send?.(HEARTBEAT);
  beat();
  // Neither the channel nor the timer is what keeps the process alive: a drained worker still exits.
  process.channel?.unref();
  setInterval(beat, intervalMs).unref();
}

export const isHeartbeat = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === HEARTBEAT.type;
