/**
 * The event relay: turns outbox rows (models/event.ts) into work for each consumer
 * (webhook deliveries now; chat notifications and CRM/storage syncs attach here too).
 *
 * Two paths run the same idempotent `relayEvent`:
 * - right after `recordEvent` writes a row, the process relays it at once in the
 *   background (low latency; failures are only logged);
 * - a loop in the worker picks up rows still unrelayed after a short grace period, so an
 *   event recorded while Temporal was down is delivered once it is back.
 * Consumers must be idempotent (derive workflow ids from the event): a row may be relayed
 * by both paths, or again after a crash between the starts and `relayed_at`.
 *
 * Queued mail (services/mail/queue.ts) is an outbox of the same kind: `queueMail` starts the
 * message's workflow at once, and the same loop starts any whose start failed.
 */
import { trusted, type HydratedDocument } from 'mongoose';
import type { Engines } from '../engines';
import type { RecordedEvents } from './record-event';
import { TEMPORAL_DEADLINE_MS } from '../temporal/client';
import { Event, type EventDoc } from '../../models/event';

export type EventRecord = HydratedDocument<EventDoc>;

export interface EventConsumer {
  name: string;
  /** Idempotent: called at least once per event. */
  consume(s: Engines, event: EventRecord): Promise<void>;
}

// The grace before the loop takes an event over from its immediate relay. An immediate relay
// can take up to the Temporal deadline (5 s) per start; with a shorter grace a loaded machine
// relayed most events of a burst two or three times (3 subscription reads, 3 delivery inserts
// per delivery, bench/README.md), which loaded it further.
const TAKE_OVER_AFTER_MS = 2 * TEMPORAL_DEADLINE_MS;

/** A pass the catch-up loop runs beside the events (e.g. queued mail whose workflow did not start). */
export type CatchUpPass = (s: Engines, opts: { olderThanMs: number }) => Promise<unknown>;

/** Events the catch-up loop relays side by side (a backlog drains at this many at a time). */
const RELAY_CONCURRENCY = 16;

/**
 * The relay over the given consumers. The relay knows no feature: the worker and app wiring
 * (services/wiring.ts) hand it every consumer and catch-up pass, and the notifier of the
 * events this process records (`recordedEvents`), which its immediate path listens to.
 */
export function createRelay(recorded: RecordedEvents, consumers: readonly EventConsumer[], catchUp: readonly CatchUpPass[] = []) {
  /**
   * Hands one event (read by its id, or as just recorded) to every consumer, then marks it
   * relayed. Consumers are independent, so they run side by side: an event waits for the
   * slowest, not for the sum. Throws when a consumer fails (after all have finished, so each
   * got its chance).
   */
  async function relayEvent(s: Engines, eventOrId: string | EventRecord): Promise<void> {
    const event = typeof eventOrId === 'string' ? await Event.findById(eventOrId) : eventOrId;
    if (!event || event.relayed_at) return;
    const failed = (await Promise.allSettled(consumers.map((consumer) => consumer.consume(s, event)))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    await Event.updateOne({ _id: event._id, relayed_at: null }, { $set: { relayed_at: new Date() } });
  }

  /**
   * Relays rows older than `olderThanMs` that are still unrelayed, up to RELAY_CONCURRENCY at
   * once; after the first failure (e.g. Temporal down) it starts no more and throws.
   */
  async function relayPending(s: Engines, { olderThanMs = 1500, limit = 100 } = {}): Promise<number> {
    const due = await Event.find({ relayed_at: null, occurred_at: trusted({ $lte: new Date(Date.now() - olderThanMs) }) }, { _id: 1 })
      .sort({ occurred_at: 1 })
      .limit(limit)
      .lean();
    let next = 0;
    let relayed = 0;
    let failure: { err: unknown } | undefined;
    const lane = async () => {
      while (!failure && next < due.length) {
        const { _id } = due[next++]!;
        try {
          await relayEvent(s, _id.toHexString());
          relayed++;
        } catch (err) {
          failure ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RELAY_CONCURRENCY, due.length) }, lane));
    if (failure) throw failure.err;
    return relayed;
  }

  /** Makes this process relay every event it records at once, in the background. */
  function relayOnRecord(s: Engines): void {
    recorded.listen((event) => {
      relayEvent(s, event).catch((err: unknown) =>
        s.logger.warn({ err: (err as Error).message, eventId: event.id }, 'immediate relay failed; the relay loop will retry'),
      );
    });
  }

  /** The catch-up loop (run by the worker): every `intervalMs`, relay pending events and run the catch-up passes. */
  function startRelayLoop(s: Engines, { intervalMs = 1000, olderThanMs = TAKE_OVER_AFTER_MS } = {}): { stop(): Promise<void> } {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let pass: Promise<void> = Promise.resolve();
    let failing = false;
    const tick = () => {
      // All run to the end before the next pass (allSettled), and a failure of any is reported.
      pass = Promise.allSettled([relayPending(s, { olderThanMs }), ...catchUp.map((run) => run(s, { olderThanMs }))])
        .then(([events, ...others]) => {
          if (events.status === 'rejected') throw events.reason;
          const failed = others.find((r) => r.status === 'rejected');
          if (failed) throw failed.reason;
          const n = events.value;
          if (failing) s.logger.info({ relayed: n }, 'event relay recovered');
          failing = false;
        })
        .catch((err: unknown) => {
          if (!failing) s.logger.warn({ err: (err as Error).message }, 'event relay failing; retrying');
          failing = true;
        })
        .finally(() => {
          if (!stopped) timer = setTimeout(tick, intervalMs);
        });
    };
    timer = setTimeout(tick, intervalMs);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await pass;
      },
    };
  }

  return { relayEvent, relayPending, relayOnRecord, startRelayLoop };
}

export type Relay = ReturnType<typeof createRelay>;
